import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { anyChar, anyString } from '../test/arbitraries.js';
import { expectSessionReferenceError, isErrorWithCode } from '../test/errors.js';
import { encodeBase64Url } from './base64url.js';
import {
  SESSION_REFERENCE_SCHEME,
  decodeSessionReferenceUri,
  encodeSessionReferenceUri,
  formatSessionReferenceMention,
  parseSessionReferenceText,
  readableMention,
} from './uri.js';

const INVALID = 'SESSION_REFERENCE_INVALID_REFERENCE';

/** The URI whose payload is base64url(UTF-8(`json`)), canonical or not. */
function uriOfJson(json: string): string {
  return SESSION_REFERENCE_SCHEME + encodeBase64Url(new TextEncoder().encode(json));
}

function expectInvalidUri(uri: string): void {
  expectSessionReferenceError(() => decodeSessionReferenceUri(uri), INVALID);
}

describe('encodeSessionReferenceUri', () => {
  it.each([
    ['a', 'dsh-session:ImEi'],
    ['session-1', 'dsh-session:InNlc3Npb24tMSI'],
    ['\ud800x', 'dsh-session:Ilx1ZDgwMHgi'],
    ['', 'dsh-session:IiI'],
  ])('encodes %j as %s', (id, uri) => {
    expect(encodeSessionReferenceUri(id)).toBe(uri);
  });

  it('writes the scheme followed by unpadded base64url only', () => {
    fc.assert(
      fc.property(anyString(), (id) => {
        expect(encodeSessionReferenceUri(id)).toMatch(/^dsh-session:[A-Za-z0-9_-]+$/);
      }),
    );
  });

  it('rejects a non-string id', () => {
    expectSessionReferenceError(() => encodeSessionReferenceUri(1 as unknown as string), INVALID);
  });
});

describe('decodeSessionReferenceUri', () => {
  it('round-trips every JavaScript string, lone surrogates included', () => {
    fc.assert(
      fc.property(anyString(), (id) => {
        expect(decodeSessionReferenceUri(encodeSessionReferenceUri(id))).toBe(id);
      }),
      { numRuns: 300 },
    );
  });

  it('round-trips ids far longer than usual, interleaved with short ones', () => {
    for (const id of ['s-1', 'x'.repeat(5_000), 's-2', `é${'漢'.repeat(3_000)}😀`, 's-3']) {
      expect(decodeSessionReferenceUri(encodeSessionReferenceUri(id))).toBe(id);
      expect(parseSessionReferenceText(formatSessionReferenceMention({ sessionId: id })).references).toEqual([{ sessionId: id, label: id }]);
    }
  });

  it('round-trips every well-formed Unicode string', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (id) => {
        expect(decodeSessionReferenceUri(encodeSessionReferenceUri(id))).toBe(id);
      }),
    );
  });

  it.each([
    'quote " inside',
    'new\nline',
    'bracket ] and [',
    'back\\slash',
    '\udc00 lone low',
    'lone high \ud800',
    '😀 pair',
    '</referenced-sessions>',
  ])('round-trips %j', (id) => {
    expect(decodeSessionReferenceUri(encodeSessionReferenceUri(id))).toBe(id);
  });

  it.each([
    ['padding', 'dsh-session:ImEi='],
    ['double padding', 'dsh-session:ImI='],
    ['upper-case scheme', 'DSH-SESSION:ImEi'],
    ['mixed-case scheme', 'Dsh-session:ImEi'],
    ['another scheme', 'dsh-sessions:ImEi'],
    ['leading space', ' dsh-session:ImEi'],
    ['trailing newline', 'dsh-session:ImEi\n'],
    ['empty payload', 'dsh-session:'],
    ['no scheme at all', 'ImEi'],
    ['a JSON number', 'dsh-session:MQ'],
    ['JSON null', uriOfJson('null')],
    ['a JSON array of a string', uriOfJson('["a"]')],
    ['a JSON object', uriOfJson('{"a":"a"}')],
    ['JSON with surrounding whitespace', uriOfJson(' "a"')],
    ['a needlessly escaped JSON string', uriOfJson('"\\u0061"')],
    ['a truncated payload', 'dsh-session:ImE'],
    ['a payload of impossible length', 'dsh-session:ImEiI'],
    ['standard base64 characters', 'dsh-session:+/+/'],
    ['an inner space', 'dsh-session:Im Ei'],
    ['punctuation', 'dsh-session:!!'],
    ['non-ASCII payload', 'dsh-session:ImEié'],
    ['invalid UTF-8', 'dsh-session:-_'],
    ['a nested scheme', 'dsh-session:dsh-session:ImEi'],
    ['two ids back to back', 'dsh-session:ImEiImEi'],
  ])('rejects %s', (_name, uri) => {
    expectInvalidUri(uri);
  });

  it('rejects a payload whose unused trailing bits are set', () => {
    // "ab" encodes to 4 bytes, so its last base64url character carries 4 unused bits.
    const canonical = encodeSessionReferenceUri('ab');
    expect(canonical).toBe('dsh-session:ImFiIg');
    expectInvalidUri('dsh-session:ImFiIh');
    expectInvalidUri('dsh-session:ImFiIv');
  });

  it('rejects every variant of a canonical URI whose last character differs only in unused bits', () => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    fc.assert(
      fc.property(anyString(), fc.integer({ min: 1, max: 15 }), (id, noise) => {
        const uri = encodeSessionReferenceUri(id);
        const payloadLength = uri.length - SESSION_REFERENCE_SCHEME.length;
        fc.pre(payloadLength % 4 !== 0);
        // 2 trailing characters carry 1 byte (4 unused bits), 3 carry 2 bytes (2 unused bits).
        const unusedBits = payloadLength % 4 === 2 ? 4 : 2;
        const last = alphabet.indexOf(uri.at(-1)!);
        const altered = last ^ (noise & ((1 << unusedBits) - 1));
        fc.pre(altered !== last);
        expectInvalidUri(uri.slice(0, -1) + alphabet[altered]);
      }),
    );
  });

  it('rejects a non-string URI', () => {
    expectInvalidUri(undefined as unknown as string);
  });

  it('either returns an id that encodes back to the very same URI or throws INVALID_REFERENCE', () => {
    const payloadChar = fc.constantFrom(...'AIJMbciIjExyz019-_=+/ '.split(''));
    const candidate = fc.oneof(
      anyString(),
      fc.string({ unit: payloadChar }).map((payload) => SESSION_REFERENCE_SCHEME + payload),
    );
    fc.assert(
      fc.property(candidate, (uri) => {
        let id: string;
        try {
          id = decodeSessionReferenceUri(uri);
        } catch (error) {
          expect(isErrorWithCode(error, INVALID)).toBe(true);
          return;
        }
        expect(encodeSessionReferenceUri(id)).toBe(uri);
      }),
      { numRuns: 300 },
    );
  });
});

describe('formatSessionReferenceMention', () => {
  it('defaults the label to the id', () => {
    expect(formatSessionReferenceMention({ sessionId: 'a' })).toBe('@[a](dsh-session:ImEi)');
  });

  it('escapes backslashes and closing brackets in the label, and nothing else', () => {
    expect(formatSessionReferenceMention({ sessionId: 'a', label: 'x]y\\z[(w)' })).toBe('@[x\\]y\\\\z[(w)](dsh-session:ImEi)');
  });

  it('escapes a defaulted label too', () => {
    const id = 'a]\\';
    expect(formatSessionReferenceMention({ sessionId: id })).toBe(`@[a\\]\\\\](${encodeSessionReferenceUri(id)})`);
  });

  it('keeps an empty label empty', () => {
    expect(formatSessionReferenceMention({ sessionId: 'a', label: '' })).toBe('@[](dsh-session:ImEi)');
  });

  it('is recovered exactly by parseSessionReferenceText', () => {
    fc.assert(
      fc.property(anyString(), fc.option(anyString(), { nil: undefined }), (sessionId, label) => {
        const expectedLabel = label ?? sessionId;
        expect(parseSessionReferenceText(formatSessionReferenceMention({ sessionId, label }))).toEqual({
          text: readableMention(expectedLabel),
          references: [{ sessionId, label: expectedLabel }],
        });
      }),
      { numRuns: 300 },
    );
  });

  it('keeps several mentions apart, in appearance order', () => {
    const reference = fc.record({ sessionId: anyString(), label: anyString() });
    fc.assert(
      fc.property(fc.array(reference, { minLength: 1, maxLength: 5 }), (references) => {
        const parsed = parseSessionReferenceText(references.map(formatSessionReferenceMention).join(' '));
        expect(parsed.references).toEqual(references);
        expect(parsed.text).toBe(references.map((reference) => `@${reference.label}`).join(' '));
      }),
    );
  });
});

describe('parseSessionReferenceText', () => {
  type Reference = [sessionId: string, label: string];

  // Observed behaviour of the reference implementation: input => readable text, references.
  it.each<[string, string, Reference[]]>([
    ['hi @[t](dsh-session:ImEi) there', 'hi @t there', [['a', 't']]],
    ['bare dsh-session:ImEi.', 'bare @a.', [['a', 'a']]],
    ['dsh-session: alone', 'dsh-session: alone', []],
    ['dsh-session:!!', 'dsh-session:!!', []],
    ['x dsh-session:ImEi=', 'x @a=', [['a', 'a']]],
    ['@[a\\]b](dsh-session:ImEi)', '@a]b', [['a', 'a]b']]],
    ['@[](dsh-session:ImEi)', '@', [['a', '']]],
    ['@[x] (dsh-session:ImEi)', '@[x] (@a)', [['a', 'a']]],
    ['adsh-session:ImEi', 'a@a', [['a', 'a']]],
    ['@[a\nb](dsh-session:ImEi)', '@a\nb', [['a', 'a\nb']]],
    ['@[a\\b](dsh-session:ImEi)', '@ab', [['a', 'ab']]],
    ['@[a[b](dsh-session:ImEi)', '@a[b', [['a', 'a[b']]],
    ['@[x](dsh-session:ImEi', '@[x](@a', [['a', 'a']]],
    ['@[x](dsh-session:ImEi )', '@[x](@a )', [['a', 'a']]],
    // Any whitespace ends a mention's URI, as `\s` defines it.
    ['@[x](dsh-session:ImEi\u00a0)', '@[x](@a\u00a0)', [['a', 'a']]],
    ['@[x](dsh-session:ImEi\u3000)', '@[x](@a\u3000)', [['a', 'a']]],
    ['@[x](dsh-session:ImEi\ufeff)', '@[x](@a\ufeff)', [['a', 'a']]],
    ['@[x](dsh-session:ImEi\u2028)', '@[x](@a\u2028)', [['a', 'a']]],
    ['@[x](other:ImEi)', '@[x](other:ImEi)', []],
    ['@[x\\](dsh-session:ImEi)', '@[x\\](@a)', [['a', 'a']]],
    ['\\@[x](dsh-session:ImEi)', '\\@x', [['a', 'x']]],
    ['@[x\\', '@[x\\', []],
    ['@[x](dsh-session:ImEi)(dsh-session:ImEi)', '@x(@a)', [['a', 'x'], ['a', 'a']]],
    ['[x](dsh-session:ImEi)', '[x](@a)', [['a', 'a']]],
    ['@@[x](dsh-session:ImEi)', '@@x', [['a', 'x']]],
    ['@[[x]](dsh-session:ImEi)', '@[[x]](@a)', [['a', 'a']]],
    ['@[a\\\\](dsh-session:ImEi)', '@a\\', [['a', 'a\\']]],
    ['@[a](dsh-session:ImEi)@[b](dsh-session:ImIi)', '@a@b', [['a', 'a'], ['b', 'b']]],
    ['', '', []],
    ['no mention here', 'no mention here', []],
    // Derived from the reference grammar: a backslash cannot escape a line terminator, so no label spans it.
    ['@[a\\\nb](dsh-session:ImEi)', '@[a\\\nb](@a)', [['a', 'a']]],
    ['@[a\\\u2028](dsh-session:ImEi)', '@[a\\\u2028](@a)', [['a', 'a']]],
    ['@[a\\\r\n](dsh-session:ImEi)', '@[a\\\r\n](@a)', [['a', 'a']]],
  ])('parses %j as %j', (input, text, references) => {
    expect(parseSessionReferenceText(input)).toEqual({
      text,
      references: references.map(([sessionId, label]) => ({ sessionId, label })),
    });
  });

  it.each([
    '@[x](dsh-session:ImE)',
    'dsh-session:ImE',
    '@[x](dsh-session:)',
    'dsh-session:ImEiImEi',
    '@[x](dsh-session:!!)',
    '@[x](dsh-session:ImEi?q)',
    'dsh-session:-_',
    'dsh-session:dsh-session:ImEi',
    'fine @[a](dsh-session:ImEi) then broken dsh-session:ImE',
  ])('rejects %j with INVALID_REFERENCE', (input) => {
    expectSessionReferenceError(() => parseSessionReferenceText(input), INVALID);
  });

  it('names a long invalid URI by its start and length, not in full', () => {
    const uri = `dsh-session:${'A'.repeat(100_000)}`;
    const error = expectSessionReferenceError(() => parseSessionReferenceText(`see ${uri}`), INVALID);
    expect(error.message).toBe(`invalid session reference URI "${uri.slice(0, 100)}…" (100012 characters)`);
  });

  it('returns the very same string when nothing is replaced', () => {
    const input = 'plain @[x](other:ImEi) text';
    expect(parseSessionReferenceText(input).text).toBe(input);
  });

  /** Text built from mention syntax fragments, so the parser's branches are all reached. */
  const mentionish = fc
    .array(
      fc.oneof(
        {
          arbitrary: fc.constantFrom('@[', '@', '[', ']', '(', ')', '\\', '\\\n', '\\]', ' ', '\n', '\u2028', 'x', 'dsh-session:', 'ImEi', 'ImIi', 'ImE', '=', '!'),
          weight: 6,
        },
        { arbitrary: anyChar, weight: 2 },
        { arbitrary: fc.record({ sessionId: anyString({ maxLength: 4 }), label: anyString({ maxLength: 4 }) }).map(formatSessionReferenceMention), weight: 1 },
      ),
      { maxLength: 30 },
    )
    .map((parts) => parts.join(''));

  it('either returns or throws INVALID_REFERENCE, for any text', () => {
    fc.assert(
      fc.property(fc.oneof(mentionish, anyString()), (input) => {
        try {
          const parsed = parseSessionReferenceText(input);
          expect(typeof parsed.text).toBe('string');
          for (const reference of parsed.references) expect(typeof reference.sessionId).toBe('string');
        } catch (error) {
          expect(isErrorWithCode(error, INVALID)).toBe(true);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('replaces only what its references account for', () => {
    fc.assert(
      fc.property(mentionish, (input) => {
        let parsed;
        try {
          parsed = parseSessionReferenceText(input);
        } catch {
          return;
        }
        expect(parsed.references.length === 0).toBe(parsed.text === input);
      }),
      { numRuns: 300 },
    );
  });

  it('leaves text without the scheme unchanged, with no references', () => {
    const withoutScheme = fc.oneof(mentionish, anyString()).filter((input) => !input.includes(SESSION_REFERENCE_SCHEME));
    fc.assert(
      fc.property(withoutScheme, (input) => {
        const parsed = parseSessionReferenceText(input);
        expect(parsed.text).toBe(input);
        expect(parsed.references).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  describe('on adversarial input', () => {
    /** Each input and what the parser must make of it: plain text returned unchanged, or a refused reference. */
    const adversarial: [string, string, 'returned' | 'invalid'][] = [
      ['unclosed label openers', '@['.repeat(200_000), 'returned'],
      ['label closers followed by empty schemes', '](dsh-session:'.repeat(50_000) + 'x', 'invalid'],
      ['unterminated markdown URIs', '@[](dsh-session:'.repeat(50_000), 'returned'],
      ['unescaped closers without URIs', '@[a]'.repeat(100_000), 'returned'],
      ['escapes that never close', '@[\\]'.repeat(100_000), 'returned'],
      ['bare schemes without payload', 'dsh-session:'.repeat(50_000), 'invalid'],
      ['a mention with a huge unterminated URI', '@[x](dsh-session:' + 'A'.repeat(400_000), 'invalid'],
    ];

    /**
     * Characters the scanner touches: `charCodeAt` reads plus the span each
     * `indexOf` search or regular expression test covers. A deterministic
     * stand-in for running time.
     */
    function scannedCharacters(run: () => void): number {
      const { indexOf, charCodeAt } = String.prototype;
      const { test } = RegExp.prototype;
      let scanned = 0;
      String.prototype.indexOf = function (this: string, search: string, position?: number) {
        const found = indexOf.call(this, search, position);
        scanned += (found < 0 ? this.length : found) - Math.max(0, position ?? 0);
        return found;
      };
      String.prototype.charCodeAt = function (this: string, index: number) {
        scanned++;
        return charCodeAt.call(this, index);
      };
      // A sticky expression that matched read from its start to its end and one more; any other read it all.
      RegExp.prototype.test = function (this: RegExp, input: string) {
        const from = this.lastIndex;
        const matched = test.call(this, input);
        scanned += this.sticky && matched ? this.lastIndex - from + 1 : input.length - from;
        return matched;
      };
      try {
        run();
      } finally {
        String.prototype.indexOf = indexOf;
        String.prototype.charCodeAt = charCodeAt;
        RegExp.prototype.test = test;
      }
      return scanned;
    }

    function parseOutcome(input: string): 'returned' | 'invalid' {
      try {
        const parsed = parseSessionReferenceText(input);
        // Returned means left alone: no reference found in text that holds none.
        expect(parsed).toEqual({ text: input, references: [] });
        return 'returned';
      } catch (error) {
        expect(isErrorWithCode(error, INVALID)).toBe(true);
        return 'invalid';
      }
    }

    it.each(adversarial)('completes on %s with the expected outcome', (_name, input, expected) => {
      expect(parseOutcome(input)).toBe(expected);
    });

    it.each(adversarial)('scans %s in linear work', (_name, input) => {
      const scanned = scannedCharacters(() => parseOutcome(input));
      expect(scanned).toBeLessThanOrEqual(8 * input.length);
    });
  });
});
