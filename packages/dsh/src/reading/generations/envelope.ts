/**
 * A committed event line to its events, with the envelope every generation
 * shares checked: `{type, seq, time, data}` plus optional `surfaceOp`,
 * `sourceEventSeqs` and `ignorable: true`, and no other key (rc.8's restore
 * refuses any other). v0 and v1 may pack a run of stream chunks into one row
 * (`text-chunks`, …), which rc.8's own decoder expands; from v2 a row is one
 * event. Any generation may store `sourceEventSeqs` runs as `[start, end]`
 * pairs, which rc.8 does not read: they are expanded here.
 */
import { decodeStorageRecord } from '@deepseek-ai/dsh-session';
import { corrupt } from './errors.js';
import type { Generation } from './generation.js';
import { isCount, isNonEmptyString, isRecord, type JsonRecord } from './json.js';

/** One event as its generation wrote it, envelope checked, payload not yet read. */
export interface RawEvent {
  type: string;
  seq: number;
  time: number;
  data: unknown;
  surfaceOp?: unknown;
  sourceEventSeqs?: number[];
  ignorable?: true;
}

const ENVELOPE_KEYS = new Set(['type', 'seq', 'time', 'data', 'surfaceOp', 'sourceEventSeqs', 'ignorable']);

/** The events one line of a `generation` log holds, in order. */
export function lineEvents(value: unknown, generation: Generation, lineNumber: number): RawEvent[] {
  return unpackRow(value, generation, lineNumber).map((event) => envelope(event, lineNumber));
}

function unpackRow(value: unknown, generation: Generation, lineNumber: number): unknown[] {
  if (generation >= 2) return [value];
  try {
    return decodeStorageRecord(value);
  } catch (error) {
    throw corrupt(`line ${lineNumber} is a malformed packed row`, { cause: error });
  }
}

function envelope(value: unknown, lineNumber: number): RawEvent {
  const where = `the event on line ${lineNumber}`;
  if (!isRecord(value)) throw corrupt(`${where} is not a JSON object`);
  const extra = Object.keys(value).find((key) => !ENVELOPE_KEYS.has(key));
  if (extra !== undefined) throw corrupt(`${where} has a key no event envelope has: ${extra}`);
  const { type, seq, time, data, surfaceOp, ignorable } = value;
  if (!isNonEmptyString(type)) throw corrupt(`${where} has no type`);
  if (!isCount(seq)) throw corrupt(`${where} has no valid seq`);
  if (typeof time !== 'number' || !Number.isSafeInteger(time)) throw corrupt(`${where} has no valid time`);
  if (data === undefined) throw corrupt(`${where} has no data`);
  if (ignorable !== undefined && ignorable !== true) throw corrupt(`${where} has an ignorable marker other than true`);
  return {
    type,
    seq,
    time,
    data,
    ...(surfaceOp === undefined ? {} : { surfaceOp }),
    ...sourceSeqsOf(value, seq, where),
    ...(ignorable === true ? { ignorable } : {}),
  };
}

function sourceSeqsOf(value: JsonRecord, seq: number, where: string): { sourceEventSeqs?: number[] } {
  const raw = value['sourceEventSeqs'];
  return raw === undefined ? {} : { sourceEventSeqs: decodeSourceSeqs(raw, seq, where) };
}

/**
 * Expand `[start, end]` runs. Every cited seq is earlier than the citing
 * event, so at most `seq` of them exist: a larger expansion is damage, and
 * the bound keeps a crafted `[0, 2**52]` from allocating anything.
 */
function decodeSourceSeqs(raw: unknown, seq: number, where: string): number[] {
  if (!Array.isArray(raw)) throw corrupt(`${where} has sourceEventSeqs that are not an array`);
  const seqs: number[] = [];
  for (const entry of raw) {
    const [start, end] = isCount(entry) ? [entry, entry] : rangeOf(entry, where);
    if (end - start + 1 > seq - seqs.length) throw corrupt(`${where} cites more source events than precede it`);
    for (let cited = start; cited <= end; cited += 1) seqs.push(cited);
  }
  return seqs;
}

function rangeOf(entry: unknown, where: string): [number, number] {
  if (Array.isArray(entry) && entry.length === 2 && isCount(entry[0]) && isCount(entry[1]) && entry[0] <= entry[1]) return [entry[0], entry[1]];
  throw corrupt(`${where} has a sourceEventSeqs entry that is neither a seq nor a [start, end] run`);
}
