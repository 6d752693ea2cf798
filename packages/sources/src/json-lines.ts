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
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const char = text.charCodeAt(index);
    if (inString) {
      if (char === 0x5c) index += 1;
      else if (char === 0x22) inString = false;
    } else if (char === 0x22) {
      inString = true;
    } else if (char === 0x5b || char === 0x7b) {
      if (++depth > max) return false;
    } else if (char === 0x5d || char === 0x7d) {
      depth -= 1;
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

/** `value` as a plain JSON object, or `undefined`. */
export function asObject(value: unknown): Record<string, unknown> | undefined {
  return isJsonObject(value) ? value : undefined;
}

/** `value` when it is a string, else `undefined`. */
export function asString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
