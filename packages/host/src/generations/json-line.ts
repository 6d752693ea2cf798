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
const OPENERS = new Set([0x5b, 0x7b]);
const CLOSERS = new Set([0x5d, 0x7d]);

/** The JSON value of line number `lineNumber` (1 is the header). */
export function parseJsonLine(line: Buffer, lineNumber: number): unknown {
  assertShallow(line, lineNumber);
  try {
    return JSON.parse(line.toString('utf8'));
  } catch (error) {
    throw corrupt(`line ${lineNumber} is not valid JSON`, { cause: error });
  }
}

/** Track bracket depth outside strings; an escaped character never ends a string. */
function assertShallow(line: Buffer, lineNumber: number): void {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < line.length; index += 1) {
    const byte = line[index]!;
    if (inString) {
      if (byte === BACKSLASH) index += 1;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) {
      inString = true;
    } else if (OPENERS.has(byte)) {
      depth += 1;
      if (depth > MAX_NESTING_DEPTH) {
        throw new SessionLogReadError('SESSION_LOG_TOO_DEEP', `line ${lineNumber} nests more than ${MAX_NESTING_DEPTH} levels`);
      }
    } else if (CLOSERS.has(byte)) {
      depth -= 1;
    }
  }
}
