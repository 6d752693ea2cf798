import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeBase64Url, encodeBase64Url } from './base64url.js';

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
});
