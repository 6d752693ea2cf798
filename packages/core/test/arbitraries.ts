/** fast-check arbitraries shared by the core tests. */
import fc from 'fast-check';

/** Fragments that stress escaping, tag framing, mention syntax and UTF-8 arithmetic. */
const TRICKY_FRAGMENTS = [
  '<',
  '>',
  '<referenced-sessions>',
  '</referenced-sessions>',
  '"',
  "'",
  '\\',
  '[',
  ']',
  '(',
  ')',
  '@',
  '\n',
  '\r\n',
  '\t',
  '\u0000',
  '\u2028',
  'é',
  '€',
  '…',
  '😀',
  '👩‍💻',
  '\ud800',
  '\udbff',
  '\udc00',
  '\udfff',
] as const;

/** Any single UTF-16 code unit, lone surrogates included. */
const codeUnit = fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code));

/** Any single code point (surrogate pairs for the astral planes). */
const codePoint = fc.string({ unit: 'binary', minLength: 1, maxLength: 1 });

/** One "character" of an arbitrary JavaScript string: tricky fragments, any code unit or any code point. */
export const anyChar = fc.oneof(fc.constantFrom(...TRICKY_FRAGMENTS), codeUnit, codePoint);

/** Any JavaScript string, biased towards the characters that break naive code (lone surrogates included). */
export function anyString(constraints: { minLength?: number; maxLength?: number } = {}): fc.Arbitrary<string> {
  return fc.string({ unit: anyChar, ...constraints });
}

/** Whether `text` holds a surrogate that is not part of a pair. */
export function hasLoneSurrogate(text: string): boolean {
  return /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text);
}
