import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { anyString, hasLoneSurrogate } from '../test/arbitraries.js';
import { toWellFormed, utf8Length, utf8Prefix, utf8Suffix } from './utf8.js';

const encoder = new TextEncoder();
const encodedLength = (text: string) => encoder.encode(text).length;

/** Whether `index` falls between the two halves of a surrogate pair. */
function splitsPair(text: string, index: number): boolean {
  const before = text.charCodeAt(index - 1);
  const after = text.charCodeAt(index);
  return before >= 0xd800 && before <= 0xdbff && after >= 0xdc00 && after <= 0xdfff;
}

/** Code units of the code point starting at `index`. */
const unitsAt = (text: string, index: number) => (text.codePointAt(index)! > 0xffff ? 2 : 1);
/** Code units of the code point ending at `end`. */
const unitsBefore = (text: string, end: number) => (end >= 2 && splitsPair(text, end - 1) ? 2 : 1);

describe('utf8Length', () => {
  it.each([
    ['', 0],
    ['a', 1],
    ['é', 2],
    ['€', 3],
    ['😀', 4],
    ['\ud800', 3],
    ['\udc00\ud800', 6],
    ['\ud83da', 4],
    ['a\ude00', 4],
  ])('counts %j as %i bytes', (text, length) => {
    expect(utf8Length(text)).toBe(length);
  });

  it('equals the length TextEncoder writes and Node counts, lone surrogates included', () => {
    fc.assert(
      fc.property(anyString({ maxLength: 200 }), (text) => {
        expect(utf8Length(text)).toBe(encodedLength(text));
        expect(utf8Length(text)).toBe(Buffer.byteLength(text, 'utf8'));
      }),
      { numRuns: 300 },
    );
  });

  // Long text is counted in chunks of 65,536 code units; a pair across a chunk boundary is still 4 bytes.
  it.each([
    ['pairs from an even index', '😀'.repeat(70_000)],
    ['pairs from an odd index, a high surrogate ending each chunk', `a${'😀'.repeat(100_000)}`],
    ['a lone high surrogate ending a chunk', `${'a'.repeat(65_535)}\ud800b${'é'.repeat(70_000)}`],
    ['a lone low surrogate starting a chunk', `${'a'.repeat(65_536)}\udc00${'€'.repeat(70_000)}`],
  ])('counts long text with %s exactly', (_case, text) => {
    expect(utf8Length(text)).toBe(encodedLength(text));
  });

  it('counts long text of any composition exactly', () => {
    fc.assert(
      fc.property(anyString({ minLength: 1, maxLength: 8 }), fc.integer({ min: 65_000, max: 140_000 }), (unit, times) => {
        const text = unit.repeat(Math.ceil(times / unit.length));
        expect(utf8Length(text)).toBe(encodedLength(text));
      }),
      { numRuns: 40 },
    );
  });
});

describe('utf8Prefix', () => {
  it('never splits a surrogate pair', () => {
    expect(utf8Prefix('😀a', 3)).toEqual({ end: 0, bytes: 0 });
    expect(utf8Prefix('😀a', 4)).toEqual({ end: 2, bytes: 4 });
  });

  it('cuts on a code point boundary, within the budget, as far as the budget allows', () => {
    fc.assert(
      fc.property(anyString({ maxLength: 60 }), fc.nat({ max: 250 }), (text, maxBytes) => {
        const { end, bytes } = utf8Prefix(text, maxBytes);
        expect(splitsPair(text, end)).toBe(false);
        expect(bytes).toBe(encodedLength(text.slice(0, end)));
        expect(bytes).toBeLessThanOrEqual(maxBytes);
        if (end < text.length) {
          expect(encodedLength(text.slice(0, end + unitsAt(text, end)))).toBeGreaterThan(maxBytes);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('utf8Suffix', () => {
  it('never splits a surrogate pair', () => {
    expect(utf8Suffix('a😀', 3)).toEqual({ start: 3, bytes: 0 });
    expect(utf8Suffix('a😀', 4)).toEqual({ start: 1, bytes: 4 });
  });

  it('cuts on a code point boundary, within the budget, as far as the budget allows', () => {
    fc.assert(
      fc.property(anyString({ maxLength: 60 }), fc.nat({ max: 250 }), (text, maxBytes) => {
        const { start, bytes } = utf8Suffix(text, maxBytes);
        expect(splitsPair(text, start)).toBe(false);
        expect(bytes).toBe(encodedLength(text.slice(start)));
        expect(bytes).toBeLessThanOrEqual(maxBytes);
        if (start > 0) {
          expect(encodedLength(text.slice(start - unitsBefore(text, start)))).toBeGreaterThan(maxBytes);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('toWellFormed', () => {
  it('replaces exactly the lone surrogates with U+FFFD, as a UTF-8 round trip does', () => {
    fc.assert(
      fc.property(anyString({ maxLength: 60 }), (text) => {
        const wellFormed = toWellFormed(text);
        expect(wellFormed).toBe(new TextDecoder().decode(encoder.encode(text)));
        expect(wellFormed.length).toBe(text.length);
        expect(hasLoneSurrogate(wellFormed)).toBe(false);
      }),
    );
  });

  it('returns a well-formed string unchanged', () => {
    expect(toWellFormed('a😀é')).toBe('a😀é');
  });
});
