/**
 * UTF-8 byte arithmetic on JavaScript strings, without encoding them.
 * A lone surrogate counts as the 3 bytes of U+FFFD, which is what any UTF-8
 * encoder writes for it.
 */

/** UTF-16 code units encoded per call, so the scratch buffer stays small whatever the text. */
const CHUNK_UNITS = 1 << 16;
const encoder = new TextEncoder();
// A code unit never takes more than 3 bytes (a surrogate pair: 2 units, 4 bytes).
const scratch = new Uint8Array(CHUNK_UNITS * 3);

/**
 * UTF-8 length of `text`. The platform's encoder counts it: it is an order of
 * magnitude faster than a loop over code units on long text, and it writes a
 * lone surrogate as U+FFFD too. Long text goes through in chunks that never
 * end between the halves of a surrogate pair.
 */
export function utf8Length(text: string): number {
  if (text.length <= CHUNK_UNITS) return encoder.encodeInto(text, scratch).written;
  let bytes = 0;
  for (let start = 0; start < text.length; ) {
    let end = Math.min(start + CHUNK_UNITS, text.length);
    if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end--;
    bytes += encoder.encodeInto(text.slice(start, end), scratch).written;
    start = end;
  }
  return bytes;
}

/** Code units of the longest code-point-aligned prefix whose UTF-8 length is at most `maxBytes`, and that length. */
export function utf8Prefix(text: string, maxBytes: number): { end: number; bytes: number } {
  let bytes = 0;
  let i = 0;
  while (i < text.length) {
    const { units, size } = codePointAt(text, i);
    if (bytes + size > maxBytes) break;
    bytes += size;
    i += units;
  }
  return { end: i, bytes };
}

/** Start index of the longest code-point-aligned suffix whose UTF-8 length is at most `maxBytes`, and that length. */
export function utf8Suffix(text: string, maxBytes: number): { start: number; bytes: number } {
  let bytes = 0;
  let i = text.length;
  while (i > 0) {
    const { units, size } = codePointBefore(text, i);
    if (bytes + size > maxBytes) break;
    bytes += size;
    i -= units;
  }
  return { start: i, bytes };
}

/** Replace lone surrogates with U+FFFD, as a UTF-8 round trip would. */
export function toWellFormed(text: string): string {
  return /[\ud800-\udfff]/.test(text) ? text.replace(LONE_SURROGATE, '\ufffd') : text;
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

function codePointAt(text: string, i: number): { units: number; size: number } {
  const code = text.charCodeAt(i);
  if (code < 0x80) return ONE;
  if (code < 0x800) return TWO;
  if (isHighSurrogate(code) && isLowSurrogate(text.charCodeAt(i + 1))) return PAIR;
  return THREE;
}

function codePointBefore(text: string, end: number): { units: number; size: number } {
  const code = text.charCodeAt(end - 1);
  if (code < 0x80) return ONE;
  if (code < 0x800) return TWO;
  if (isLowSurrogate(code) && end >= 2 && isHighSurrogate(text.charCodeAt(end - 2))) return PAIR;
  return THREE;
}

const ONE = { units: 1, size: 1 };
const TWO = { units: 1, size: 2 };
const THREE = { units: 1, size: 3 };
const PAIR = { units: 2, size: 4 };

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
