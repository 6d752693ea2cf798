/**
 * One committed line to a JSON value, refusing what no dsh record is: text
 * that is not JSON, and nesting deeper than {@link MAX_NESTING_DEPTH}. The
 * depth is checked on the bytes before parsing because the code that later
 * copies, freezes and compares events (dsh's included) recurses per level.
 */
import { SessionLogReadError, corrupt } from './errors.js';

/**
 * Arrays and objects a line may nest. dsh's deepest record (an event around
 * a message around a tool result around content, plus a tool's own JSON)
 * stays far below; recursion over this many levels is safe on any stack.
 */
const MAX_NESTING_DEPTH = 512;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACKET = 0x5d;
const CLOSE_BRACE = 0x7d;

/** The JSON value of line number `lineNumber` (1 is the header). */
export function parseJsonLine(line: Buffer, lineNumber: number): unknown {
  assertShallow(line, lineNumber);
  try {
    return JSON.parse(line.toString('utf8'));
  } catch (error) {
    throw corrupt(`line ${lineNumber} is not valid JSON`, { cause: error });
  }
}

/**
 * Track bracket depth outside strings, a string skipped whole (an escaped
 * character never ends it). A line no longer than the limit cannot nest
 * past it and is not scanned; a longer one is scanned once.
 */
function assertShallow(line: Buffer, lineNumber: number): void {
  if (line.length <= MAX_NESTING_DEPTH) return;
  let depth = 0;
  for (let index = 0; index < line.length; index += 1) {
    const byte = line[index]!;
    if (byte === QUOTE) {
      for (index += 1; index < line.length && line[index] !== QUOTE; index += 1) if (line[index] === BACKSLASH) index += 1;
    } else if (byte === OPEN_BRACKET || byte === OPEN_BRACE) {
      depth += 1;
      if (depth > MAX_NESTING_DEPTH) {
        throw new SessionLogReadError('SESSION_LOG_TOO_DEEP', `line ${lineNumber} nests more than ${MAX_NESTING_DEPTH} levels`);
      }
    } else if (byte === CLOSE_BRACKET || byte === CLOSE_BRACE) {
      depth -= 1;
    }
  }
}
