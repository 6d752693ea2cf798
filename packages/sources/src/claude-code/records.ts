import { asObject, asString } from '../json-lines.js';
import type { ChainNode } from './chain.js';

/** A JSON object record of a transcript. */
export type RawRecord = Readonly<Record<string, unknown>>;

/** A record with a place in the conversation tree. */
export interface ChainRecord extends ChainNode {
  readonly type: string;
  readonly record: RawRecord;
}

/** The record types that sit in the tree; every other type (titles, snapshots, modes, …) is beside it. */
const CHAIN_TYPES: ReadonlySet<string> = new Set(['user', 'assistant', 'progress', 'system', 'attachment']);

/**
 * The transcript's tree records, in file order: those of a chain type with
 * a string `uuid`. Unknown types and non-object lines are skipped, never
 * refused (Claude Code adds record types nearly every week). A transcript in
 * which no tree record has a `parentUuid` field is of the old shape, whose
 * records follow each other in file order.
 */
export function chainRecords(records: readonly unknown[]): ChainRecord[] {
  const objects = records.flatMap((value) => {
    const record = asObject(value);
    return record !== undefined && isChainRecord(record) ? [record] : [];
  });
  const oldShape = objects.every((record) => !('parentUuid' in record));
  return objects.map((record, index) => ({
    uuid: record.uuid,
    parentUuid: oldShape ? (objects[index - 1]?.uuid ?? null) : (asString(record['parentUuid']) ?? null),
    type: record.type,
    message: record.type === 'user' || record.type === 'assistant',
    mainLine: isMainLine(record),
    record,
  }));
}

function isChainRecord(record: RawRecord): record is RawRecord & { type: string; uuid: string } {
  return typeof record['type'] === 'string' && CHAIN_TYPES.has(record['type']) && typeof record['uuid'] === 'string';
}

/** Neither a subagent's (`isSidechain`), an agent team's (`teamName`) nor injected (`isMeta`). */
function isMainLine(record: RawRecord): boolean {
  return record['isSidechain'] !== true && record['isMeta'] !== true && !hasText(record['teamName']);
}

/** Whether `value` is a string with something in it. */
function hasText(value: unknown): boolean {
  return typeof value === 'string' && value !== '';
}
