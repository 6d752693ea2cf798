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
  const nodes = objects.map((record, index) => ({
    uuid: record.uuid,
    parentUuid: oldShape ? (objects[index - 1]?.uuid ?? null) : (asString(record['parentUuid']) ?? null),
    type: record.type,
    message: record.type === 'user' || record.type === 'assistant',
    mainLine: isMainLine(record),
    record,
  }));
  return relinkPreservedSegments(nodes);
}

/** The messages a compaction kept verbatim, as its boundary record names them. */
interface PreservedSegment {
  /** The first kept message and the last (the kept messages follow each other by `parentUuid`). */
  headUuid: string;
  tailUuid: string;
  /** The summary the kept messages come after. */
  anchorUuid: string;
}

/**
 * A compaction can keep the newest messages verbatim: its boundary records
 * them as a preserved segment (Claude Code 2.1, `compactMetadata`), while
 * their stored `parentUuid` still points into the compacted history. Claude
 * Code reattaches the segment after the summary when it loads the session,
 * and what followed the summary after the segment (seen in a real transcript
 * its headless `/compact` wrote: the next request carried summary, kept reply,
 * next prompt). The same relinking here makes the walk find that order.
 */
function relinkPreservedSegments(nodes: ChainRecord[]): ChainRecord[] {
  const segments = nodes.flatMap((node) => preservedSegmentOf(node.record) ?? []);
  if (segments.length === 0) return nodes;
  const childrenOf = new Map<string, string[]>();
  for (const node of nodes) if (node.parentUuid !== null) childrenOf.set(node.parentUuid, [...(childrenOf.get(node.parentUuid) ?? []), node.uuid]);
  const parents = new Map<string, string>();
  for (const { headUuid, tailUuid, anchorUuid } of segments) {
    for (const child of childrenOf.get(anchorUuid) ?? []) if (child !== headUuid) parents.set(child, tailUuid);
    parents.set(headUuid, anchorUuid);
  }
  return nodes.map((node) => {
    const parentUuid = parents.get(node.uuid);
    return parentUuid === undefined ? node : { ...node, parentUuid };
  });
}

function preservedSegmentOf(record: RawRecord): PreservedSegment | undefined {
  const segment = asObject(asObject(record['compactMetadata'])?.['preservedSegment']);
  const headUuid = asString(segment?.['headUuid']);
  const tailUuid = asString(segment?.['tailUuid']);
  const anchorUuid = asString(segment?.['anchorUuid']);
  return headUuid && tailUuid && anchorUuid ? { headUuid, tailUuid, anchorUuid } : undefined;
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
