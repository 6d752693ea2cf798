import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_TITLE_LENGTH, SessionInputError, checkMessageText, checkTitle, untitled } from '../src/session-input.js';

/** Any JavaScript string: any code unit (lone surrogates included) or any code point. */
const anyText = fc.string({ unit: fc.oneof(fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)), fc.string({ unit: 'binary', minLength: 1, maxLength: 1 })), minLength: 1, maxLength: 40 });

const whitespace = fc.array(fc.constantFrom(' ', '\t', '\n', '\r', '\u00a0', '\u3000'), { maxLength: 12 }).map((parts) => parts.join(''));

function refusal(run: () => unknown): SessionInputError {
  try {
    run();
  } catch (error) {
    if (error instanceof SessionInputError) return error;
    throw error;
  }
  throw new Error('expected a SessionInputError');
}

describe('checkTitle', () => {
  it('gives no title for none, empty or whitespace-only input (the caller names the session untitled)', () => {
    expect(checkTitle(undefined)).toBeUndefined();
    fc.assert(fc.property(whitespace, (blank) => checkTitle(blank) === undefined));
  });

  it('keeps a title trimmed, up to the maximum length in characters (an emoji is one)', () => {
    expect(checkTitle('  Release notes \n')).toBe('Release notes');
    expect(checkTitle('😀'.repeat(MAX_TITLE_LENGTH))).toBe('😀'.repeat(MAX_TITLE_LENGTH));
    fc.assert(
      fc.property(whitespace, anyText, whitespace, (before, title, after) => {
        const trimmed = title.trim();
        return trimmed === '' || checkTitle(before + title + after) === trimmed;
      }),
    );
  });

  it('refuses a longer title with INVALID_TITLE', () => {
    const error = refusal(() => checkTitle('x'.repeat(MAX_TITLE_LENGTH + 1)));
    expect(error).toMatchObject({ code: 'INVALID_TITLE', message: `a title may be at most ${MAX_TITLE_LENGTH} characters long, got ${MAX_TITLE_LENGTH + 1}` });
  });
});

describe('untitled', () => {
  it('names a session by the first 8 characters of its id', () => {
    expect(untitled('c061a70a-5195-46a3-9bbf-112c0c1a86f5')).toBe('Untitled c061a70a');
  });
});

describe('checkMessageText', () => {
  it('refuses an empty or whitespace-only message with EMPTY_MESSAGE', () => {
    fc.assert(fc.property(whitespace, (blank) => refusal(() => checkMessageText(blank)).code === 'EMPTY_MESSAGE'));
  });

  it('passes any other message through unchanged, whitespace included', () => {
    expect(checkMessageText('  hi\n')).toBe('  hi\n');
  });
});
