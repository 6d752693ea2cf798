/**
 * Core's head/tail cut is dsh-output-retention's `TextRetainer`: for every
 * string (lone surrogates included) and every keep budget below its size, the
 * same kept text and the same omitted byte count.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TextRetainer } from '@deepseek-ai/dsh-output-retention';
import { cutText } from '@sessref/core/internal';
import { omissionNotice, utf8Length } from '@sessref/core/internal';
import { hostileChar } from './arbitraries';

/** `original` through a head/tail `TextRetainer` keeping `keep` bytes, the head taking the larger half. */
function retain(original: string, keep: number) {
  const retainer = new TextRetainer({ kind: 'headTail', headBytes: Math.ceil(keep / 2), tailBytes: Math.floor(keep / 2) });
  retainer.push(original);
  return retainer.finish();
}

function expectSameCut(original: string, keep: number): void {
  const bytes = utf8Length(original);
  const ours = cutText(original, bytes, keep);
  const theirs = retain(original, keep);
  expect(theirs.omittedBytes.kind).toBe('exact');
  const omitted = theirs.omittedBytes.kind === 'exact' ? theirs.omittedBytes.count : Number.NaN;
  expect({ text: ours.text, omitted: ours.omitted }, `keep ${keep} of ${JSON.stringify(original)}`).toEqual({
    text: theirs.text + omissionNotice(omitted),
    omitted,
  });
}

/** Text from single code units and code points, biased to multi-byte, astral and unpaired surrogates. */
const text = fc.string({
  unit: fc.oneof(hostileChar, fc.constantFrom('é', '€', '😀', '\ud83d', '\ude00', '\ud800\ud800', '\udc00\ud800')),
  minLength: 1,
  maxLength: 48,
});

describe('cutText matches TextRetainer (headTail, head = ceil(k/2), tail = floor(k/2))', () => {
  it('for every keep budget below the size, on arbitrary strings', () => {
    fc.assert(
      fc.property(text, (original) => {
        const bytes = utf8Length(original);
        for (let keep = 0; keep < bytes; keep++) expectSameCut(original, keep);
      }),
      { numRuns: 400 },
    );
  });

  it.each([
    ['ASCII', 'abcdefghij'],
    ['two-byte runs', 'é'.repeat(9)],
    ['three-byte runs', '€'.repeat(7)],
    ['astral pairs', '😀'.repeat(5)],
    ['lone surrogates at both ends', '\udc00ab😀cd\ud800'],
    ['a reversed pair', '\udc00\ud800'],
  ])('for every keep budget below the size: %s', (_name, original) => {
    for (let keep = 0; keep < utf8Length(original); keep++) expectSameCut(original, keep);
  });
});
