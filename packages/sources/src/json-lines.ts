import { isJsonObject } from '@sessref/core/internal';
import { SourceReadError } from './errors.js';

/**
 * Arrays and objects a record may nest. Agents' records stay far below;
 * the folds recurse per level, so deeper input is refused before parsing.
 */
export const MAX_NESTING_DEPTH = 256;

/** Whether `text` (JSON) nests arrays and objects at most `max` deep, brackets inside strings aside. */
export function nestsWithin(text: string, max = MAX_NESTING_DEPTH): boolean {
  let depth = 0;
  return scanBrackets(text, (bracket) => {
    depth += bracket === 0x5b || bracket === 0x7b ? 1 : -1;
    return depth <= max;
  });
}

/**
 * Calls `visit` with each bracket of `text` (JSON, or what should be) that
 * is outside a string, and where it is, in one pass, until `visit` says
 * `false`; whether the pass reached the end.
 */
export function scanBrackets(text: string, visit: (bracket: number, index: number) => boolean): boolean {
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const char = text.charCodeAt(index);
    if (inString) {
      if (char === 0x5c) index += 1;
      else if (char === 0x22) inString = false;
    } else if (char === 0x22) {
      inString = true;
    } else if ((char === 0x5b || char === 0x7b || char === 0x5d || char === 0x7d) && !visit(char, index)) {
      return false;
    }
  }
  return true;
}

/** A JSON document, refused with a coded error when it is not JSON or nests too deep. */
export function parseJson(text: string, where: string): unknown {
  if (!nestsWithin(text)) throw new SourceReadError('SOURCE_SESSION_CORRUPT', `${where} nests more than ${MAX_NESTING_DEPTH} levels`);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new SourceReadError('SOURCE_SESSION_CORRUPT', `${where} is not valid JSON`, { cause: error });
  }
}

/**
 * The records of a JSONL transcript, in order. Blank lines are skipped. A
 * last line without its newline that is not JSON is a write in progress
 * (agents append line by line) and is left out; any other line that is not
 * JSON refuses the whole transcript.
 */
export function parseJsonLines(text: string, where: string): unknown[] {
  const lines = text.split('\n');
  const torn = lines.pop() ?? '';
  const records: unknown[] = [];
  lines.forEach((line, index) => {
    if (line.trim() !== '') records.push(parseJson(line, `${where} line ${index + 1}`));
  });
  if (torn.trim() !== '') {
    try {
      records.push(parseJson(torn, `${where} line ${lines.length + 1}`));
    } catch (error) {
      if (!(error instanceof SourceReadError) || error.code !== 'SOURCE_SESSION_CORRUPT') throw error;
    }
  }
  return records;
}

/** Whether `value` is absent or a string: an optional text field of a record sessref wrote itself. */
export function isOptionalString(value: unknown): value is string | undefined {
  return value === undefined || typeof value === 'string';
}

/** `value` as a plain JSON object, or `undefined`. */
export function asObject(value: unknown): Record<string, unknown> | undefined {
  return isJsonObject(value) ? value : undefined;
}

/** `value` when it is a string, else `undefined`. */
export function asString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/**
 * The JSON object lines of a transcript its agent reads leniently (pi's
 * `loadEntriesFromFile`, Qwen Code's `jsonl-utils` `read`), in order. Blank
 * lines are skipped, and so is a line that is JSON but not an object, or not
 * JSON at all (a torn last line included) once `salvage` has given what it
 * finds in it. A line nesting deeper than the folds go refuses the
 * transcript before it is parsed.
 */
export function parseLenientLines(text: string, where: string, salvage: (line: string) => unknown[] = () => []): Record<string, unknown>[] {
  const records: Record<string, unknown>[] = [];
  text.split('\n').forEach((line, index) => {
    if (line.trim() === '') return;
    if (!nestsWithin(line)) throw new SourceReadError('SOURCE_SESSION_CORRUPT', `${where} line ${index + 1} nests more than ${MAX_NESTING_DEPTH} levels`);
    for (const value of parsedOr(line, salvage)) {
      const record = asObject(value);
      if (record !== undefined) records.push(record);
    }
  });
  return records;
}

function parsedOr(line: string, salvage: (line: string) => unknown[]): unknown[] {
  try {
    return [JSON.parse(line)];
  } catch {
    return salvage(line);
  }
}
