import { SourceReadError } from '../errors.js';
import { asObject } from '../json-lines.js';

type JsonRecord = Readonly<Record<string, unknown>>;

/** One record of the chain: its first line, with the message parts of every line that shares its uuid. */
export interface ChainRecord {
  readonly record: JsonRecord;
  /** Whether any of its lines has a message (a chain record without one adds nothing to the history). */
  readonly hasMessage: boolean;
  readonly parts: readonly unknown[];
}

const RECORD_TYPES = new Set(['user', 'assistant', 'tool_result', 'system']);

/** `system` subtypes that are not part of the conversation tree (`NON_CONVERSATION_RECORD_SUBTYPES` and the artifact subtypes, `transcript-records.ts`). */
const OUTSIDE_THE_TREE = new Set([
  'session_artifact_event',
  'session_artifact_snapshot',
  'session_sources_snapshot',
  'managed_session_header_v1',
  'managed_session_event_v1',
  'managed_session_commit_v1',
]);

/**
 * The current conversation's records, root first, as Qwen Code's
 * `prepareTranscriptRecords` (`transcript-records.ts`) finds them for
 * `SessionService.loadSession`: records without a non-empty `uuid` and
 * `sessionId`, a `parentUuid` that is a string or null, and a known `type`
 * are skipped; records of two sessions refuse the file, as Qwen Code throws
 * on them; the leaf is the last record of the conversation tree; the walk
 * follows `parentUuid` through the first record of each uuid and stops at a
 * root, a parent not in the file or a uuid it passed already, so a cycle
 * cuts the chain and the walk is linear. Lines sharing a uuid are one
 * record whose message parts are all of theirs, in file order
 * (`aggregateTranscriptRecordFragments`).
 */
export function currentChain(records: readonly JsonRecord[], where: string): ChainRecord[] {
  const fragments = new Map<string, JsonRecord[]>();
  let sessionId: unknown;
  let leaf: string | undefined;
  for (const record of records) {
    if (!isValidRecord(record)) continue;
    sessionId ??= record['sessionId'];
    if (record['sessionId'] !== sessionId) throw new SourceReadError('SOURCE_SESSION_CORRUPT', `${where} holds records of more than one session: Qwen Code does not resume it`);
    if (!inTheTree(record)) continue;
    // The leaf (`selectTranscriptLeaf`): the last record of the tree.
    leaf = record['uuid'] as string;
    const known = fragments.get(leaf);
    if (known === undefined) fragments.set(leaf, [record]);
    else known.push(record);
  }
  const chain: ChainRecord[] = [];
  const passed = new Set<string>();
  for (let uuid = leaf; uuid !== undefined && !passed.has(uuid); ) {
    passed.add(uuid);
    const lines = fragments.get(uuid);
    if (lines === undefined) break;
    chain.push(aggregate(lines));
    const parent = lines[0]?.['parentUuid'];
    uuid = typeof parent === 'string' && parent !== '' ? parent : undefined;
  }
  return chain.reverse();
}

function isValidRecord(record: JsonRecord): boolean {
  const { uuid, parentUuid, sessionId, type } = record;
  return typeof uuid === 'string' && uuid !== '' && (typeof parentUuid === 'string' || parentUuid === null) && typeof sessionId === 'string' && sessionId !== '' && typeof type === 'string' && RECORD_TYPES.has(type);
}

function inTheTree(record: JsonRecord): boolean {
  return !(record['type'] === 'system' && typeof record['subtype'] === 'string' && OUTSIDE_THE_TREE.has(record['subtype']));
}

function aggregate(lines: readonly JsonRecord[]): ChainRecord {
  const messages = lines.map((line) => asObject(line['message'])).filter((message) => message !== undefined);
  const parts = messages.flatMap((message) => (Array.isArray(message['parts']) ? (message['parts'] as unknown[]) : []));
  return { record: lines[0]!, hasMessage: messages.length > 0, parts };
}
