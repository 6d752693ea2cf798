import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeBase64UrlInto, decodedLengthBound, encodeBase64Url } from './base64url.js';

/** The decoded bytes of all of `text`, or `undefined` when it is not canonical base64url. */
function decodeBase64Url(text: string): number[] | undefined {
  const out = new Uint8Array(decodedLengthBound(text.length));
  const length = decodeBase64UrlInto(text, 0, text.length, out);
  return length < 0 ? undefined : [...out.subarray(0, length)];
}

const bytes = (...values: number[]) => Uint8Array.from(values);

describe('base64url', () => {
  it.each([
    [bytes(), ''],
    [bytes(0x22, 0x61, 0x22), 'ImEi'],
    [bytes(0xfb), '-w'],
    [bytes(0xff, 0xff), '__8'],
    [bytes(0, 0, 0, 0), 'AAAAAA'],
  ])('encodes %o as %j', (input, text) => {
    expect(encodeBase64Url(input)).toBe(text);
    expect(decodeBase64Url(text)).toEqual([...input]);
  });

  it('agrees with Node’s base64url encoder and round-trips arbitrary bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (input) => {
        const text = encodeBase64Url(input);
        expect(text).toBe(Buffer.from(input).toString('base64url'));
        expect(decodeBase64Url(text)).toEqual([...input]);
      }),
    );
  });

  it.each(['A', 'AAAAA', 'ImE=', 'Im+i', 'Im/i', 'Im i', 'Imé', 'ImEi\n'])('refuses %j', (text) => {
    expect(decodeBase64Url(text)).toBeUndefined();
  });

  it('accepts exactly the texts it writes: whatever decodes encodes back to the same text', () => {
    const digit = fc.constantFrom(...'AIJQgw_-09azZ+/= é'.split(''));
    fc.assert(
      fc.property(fc.array(digit, { maxLength: 24 }).map((digits) => digits.join('')), (text) => {
        const decoded = decodeBase64Url(text);
        if (decoded !== undefined) expect(encodeBase64Url(Uint8Array.from(decoded))).toBe(text);
      }),
      { numRuns: 2000 },
    );
  });

  it('decodes only the given range of a longer text', () => {
    fc.assert(
      fc.property(fc.string(), fc.uint8Array({ maxLength: 40 }), fc.string(), (before, input, after) => {
        const text = before + encodeBase64Url(input) + after;
        const out = new Uint8Array(decodedLengthBound(text.length));
        const length = decodeBase64UrlInto(text, before.length, text.length - after.length, out);
        expect([...out.subarray(0, length)]).toEqual([...input]);
      }),
    );
  });
});
