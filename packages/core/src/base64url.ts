/** Unpadded base64url over bytes, portable to browsers (no Buffer, no atob). */
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const VALUES = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) VALUES[ALPHABET.charCodeAt(i)] = i;

/** The alphabet's character codes: the digits are written as bytes and decoded to a string once. */
const DIGITS = new Uint8Array(Array.from(ALPHABET, (char) => char.charCodeAt(0)));

/** The digits are ASCII, so their bytes decode as UTF-8 to exactly themselves. */
const ASCII_TEXT = new TextDecoder();

/**
 * Written into one buffer and made a string once: a listing encodes an id
 * per session, and appending four one-character strings per three bytes
 * allocated a chain of string pieces per id (about 1.6 KB an id in a fresh
 * process, where this code runs cold).
 */
export function encodeBase64Url(bytes: Uint8Array): string {
  const digits = new Uint8Array(Math.ceil((bytes.length * 4) / 3));
  let at = 0;
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    digits[at++] = DIGITS[n >> 18]!;
    digits[at++] = DIGITS[(n >> 12) & 63]!;
    digits[at++] = DIGITS[(n >> 6) & 63]!;
    digits[at++] = DIGITS[n & 63]!;
  }
  const rest = bytes.length - i;
  if (rest > 0) {
    // One byte left makes two digits, two bytes three; the digits past them are never written.
    const n = (bytes[i]! << 16) | (rest === 2 ? bytes[i + 1]! << 8 : 0);
    digits[at++] = DIGITS[n >> 18]!;
    digits[at++] = DIGITS[(n >> 12) & 63]!;
    if (rest === 2) digits[at] = DIGITS[(n >> 6) & 63]!;
  }
  return ASCII_TEXT.decode(digits);
}

/** Most bytes a base64url text of `length` characters can decode to. */
export function decodedLengthBound(length: number): number {
  return Math.floor((length * 3) / 4);
}

/**
 * Decode canonical unpadded base64url from `text[start, end)` into `out`
 * (at least {@link decodedLengthBound} bytes long) and return the number of
 * bytes written, or -1 for any character outside the alphabet, an impossible
 * length, or stray bits after the last byte, so that every accepted text is
 * exactly what {@link encodeBase64Url} writes. Writing into the caller's
 * buffer lets a scanner decode thousands of ids without allocating for each.
 */
export function decodeBase64UrlInto(text: string, start: number, end: number, out: Uint8Array): number {
  const tail = (end - start) % 4;
  if (tail === 1) return -1;
  let written = 0;
  let i = start;
  // Four digits make three bytes; decoding a group at a time halves the work per byte.
  for (const groupsEnd = end - tail; i < groupsEnd; i += 4) {
    const group = digitsAt(text, i, 4);
    if (group < 0) return -1;
    out[written++] = group >> 16;
    out[written++] = (group >> 8) & 0xff;
    out[written++] = group & 0xff;
  }
  if (tail === 0) return written;
  const rest = digitsAt(text, i, tail);
  // 2 digits carry 1 byte and 4 unused bits, 3 digits carry 2 bytes and 2 unused bits; unused bits must be 0.
  if (rest < 0 || (rest & (tail === 2 ? 0xf : 0x3)) !== 0) return -1;
  if (tail === 2) {
    out[written++] = rest >> 4;
  } else {
    out[written++] = rest >> 10;
    out[written++] = (rest >> 2) & 0xff;
  }
  return written;
}

/** The `count` base64url digits at `text[i]` as one number (6 bits each), or -1 if one is not a digit. */
function digitsAt(text: string, i: number, count: number): number {
  let value = 0;
  for (let k = 0; k < count; k++) {
    const code = text.charCodeAt(i + k);
    const digit = code < 128 ? VALUES[code]! : -1;
    if (digit < 0) return -1;
    value = (value << 6) | digit;
  }
  return value;
}
