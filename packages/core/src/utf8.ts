/**
 * UTF-8 byte arithmetic on JavaScript strings, without encoding them.
 * A lone surrogate counts as the 3 bytes of U+FFFD, which is what any UTF-8
 * encoder writes for it.
 */

/** UTF-8 length of `text`. */
export function utf8Length(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) continue;
    if (code < 0x800) bytes += 1;
    else if (isHighSurrogate(code) && isLowSurrogate(text.charCodeAt(i + 1))) {
      bytes += 2; // 2 code units, 4 bytes
      i++;
    } else bytes += 2;
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
