import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  MAX_CONTENT_QUERY_LENGTH,
  MAX_SNIPPET_LENGTH,
  boundSnippet,
  findPhrase,
  normalizeContentQuery,
  phraseTokens,
  plainExcerpt,
  snippetAround,
} from './content.js';
import { SessionReferenceError } from './errors.js';

/** Text that is FTS5 query syntax, meaningful to MATCH but plain data here. */
const SYNTAX = ['"', "'", 'OR', 'AND', 'NOT', 'NEAR', 'NEAR(', ')', '(', '*', '^', ':', '-', '+', '{', '}', 'col:', '""'];

const word = fc.stringMatching(/^[a-zA-Z0-9éüЖж漢字]{1,8}$/);
const separator = fc.constantFrom(' ', '  ', '\n', '\t', ', ', '. ', ' - ', '"', '*', '(', ') ');
const syntaxy = fc.array(fc.oneof(word, fc.constantFrom(...SYNTAX), separator), { maxLength: 12 }).map((parts) => parts.join(' '));
const anyText = fc.oneof(fc.string({ maxLength: 80 }), fc.string({ unit: 'binary', maxLength: 80 }), syntaxy);

function isWellFormed(text: string): boolean {
  return !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text);
}

function codePoints(text: string): number {
  return Array.from(text).length;
}

function invalidQuery(action: () => unknown): boolean {
  try {
    action();
    return false;
  } catch (error) {
    return error instanceof SessionReferenceError && error.code === 'SESSION_REFERENCE_INVALID_QUERY';
  }
}

describe('normalizeContentQuery', () => {
  it('returns trimmed, single-spaced, well-formed text that normalizes to itself', () => {
    fc.assert(
      fc.property(anyText, (raw) => {
        fc.pre(!raw.includes('\0'));
        const query = normalizeContentQuery(raw);
        expect(query).toBe(query.trim());
        expect(query).not.toMatch(/\s\s/u);
        expect(query).not.toMatch(/[\r\n\t]/u);
        expect(isWellFormed(query)).toBe(true);
        expect(normalizeContentQuery(query)).toBe(query);
        // Empty exactly when nothing is searchable.
        expect(query === '').toBe(phraseTokens(raw).length === 0);
      }),
      { numRuns: 500 },
    );
  });

  it('keeps FTS5 syntax as literal text', () => {
    expect(normalizeContentQuery(' "deploy"  OR\nNEAR(a b) * ')).toBe('"deploy" OR NEAR(a b) *');
    expect(normalizeContentQuery('***')).toBe('');
    expect(normalizeContentQuery('   ')).toBe('');
  });

  it('refuses NUL anywhere, over-long queries and non-strings with SESSION_REFERENCE_INVALID_QUERY', () => {
    fc.assert(
      fc.property(anyText, anyText, (a, b) => invalidQuery(() => normalizeContentQuery(`${a}\0${b}`))),
    );
    const long = 'x'.repeat(MAX_CONTENT_QUERY_LENGTH + 1);
    expect(invalidQuery(() => normalizeContentQuery(long))).toBe(true);
    expect(normalizeContentQuery('x'.repeat(MAX_CONTENT_QUERY_LENGTH))).toHaveLength(MAX_CONTENT_QUERY_LENGTH);
    // Length is counted after whitespace is collapsed, in code points.
    expect(normalizeContentQuery(`a${' '.repeat(1000)}b`)).toBe('a b');
    expect(normalizeContentQuery('𠀀'.repeat(MAX_CONTENT_QUERY_LENGTH))).toHaveLength(2 * MAX_CONTENT_QUERY_LENGTH);
    expect(invalidQuery(() => normalizeContentQuery('𠀀'.repeat(MAX_CONTENT_QUERY_LENGTH + 1)))).toBe(true);
    for (const value of [undefined, null, 7, {}, ['a']]) expect(invalidQuery(() => normalizeContentQuery(value))).toBe(true);
  });
});

describe('findPhrase', () => {
  it('finds a phrase placed anywhere, whatever the case, accents and separators around and inside it', () => {
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 4 }), anyText, anyText, separator, (words, before, after, inner) => {
        const query = words.join(' ');
        const variant = words.map((w, index) => (index % 2 === 0 ? w.toUpperCase() : w)).join(inner);
        const text = `${before} ${variant} ${after}`;
        const ranges = findPhrase(text, query);
        expect(ranges.length).toBeGreaterThan(0);
        expect(ranges.some(([start, end]) => phraseTokens(text.slice(start, end)).join(' ') === phraseTokens(query).join(' '))).toBe(true);
      }),
      { numRuns: 300 },
    );
    expect(findPhrase('Café au lait', 'cafe')).toEqual([[0, 4]]);
    expect(findPhrase('STRASSE', 'strasse')).toEqual([[0, 7]]);
  });

  it('returns ordered, disjoint ranges inside the text, each spelling exactly the phrase', () => {
    fc.assert(
      fc.property(anyText, anyText, (text, query) => {
        const needle = phraseTokens(query).join(' ');
        let previous = 0;
        for (const [start, end] of findPhrase(text, query)) {
          expect(start).toBeGreaterThanOrEqual(previous);
          expect(end).toBeGreaterThan(start);
          expect(end).toBeLessThanOrEqual(text.length);
          expect(phraseTokens(text.slice(start, end)).join(' ')).toBe(needle);
          previous = end;
        }
      }),
      { numRuns: 500 },
    );
  });

  it('treats query syntax as data: OR, NEAR, * and quotes never widen a match', () => {
    expect(findPhrase('alpha beta', 'alpha OR beta')).toEqual([]);
    expect(findPhrase('alpha or beta', '"alpha" OR "beta"')).toEqual([[0, 13]]);
    expect(findPhrase('deployment', 'deploy*')).toEqual([]);
    expect(findPhrase('deploy it', 'deploy*')).toEqual([[0, 6]]);
    expect(findPhrase('a b c', 'NEAR(a c)')).toEqual([]);
    // Token recall, not substrings: "ai" is not inside "braid".
    expect(findPhrase('braid', 'ai')).toEqual([]);
    expect(findPhrase('anything', '***')).toEqual([]);
  });
});

describe('snippets', () => {
  it('boundSnippet gives one line of at most the bound, without control or format characters', () => {
    fc.assert(
      fc.property(anyText, fc.integer({ min: 1, max: 300 }), (text, max) => {
        const snippet = boundSnippet(text, max);
        expect(codePoints(snippet)).toBeLessThanOrEqual(max);
        expect(snippet).not.toMatch(/[\p{Cc}\p{Cf}\u2028\u2029]/u);
        expect(snippet).toBe(snippet.trim());
        expect(isWellFormed(snippet)).toBe(true);
      }),
      { numRuns: 500 },
    );
    expect(boundSnippet('a\u202Eb\n\nc\u0000d')).toBe('a b c d');
    expect(boundSnippet('x'.repeat(300))).toBe(`${'x'.repeat(MAX_SNIPPET_LENGTH - 1)}…`);
  });

  it('snippetAround keeps the match and stays within the bound', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 400 }), word, fc.string({ maxLength: 400 }), fc.integer({ min: 20, max: 260 }), (before, match, after, max) => {
        const text = `${before} ${match} ${after}`;
        const start = before.length + 1;
        const snippet = snippetAround(text, [start, start + match.length], max);
        expect(codePoints(snippet)).toBeLessThanOrEqual(max);
        expect(snippet).toContain(match);
        expect(snippet).not.toMatch(/[\p{Cc}\p{Cf}\n]/u);
      }),
      { numRuns: 500 },
    );
    const text = `${'lead '.repeat(100)}needle${' tail'.repeat(100)}`;
    const snippet = snippetAround(text, [500, 506], 40);
    expect(snippet.startsWith('…')).toBe(true);
    expect(snippet.endsWith('…')).toBe(true);
    expect(snippet).toContain('needle');
    expect(snippetAround('short needle text', [6, 12])).toBe('short needle text');
  });
});

describe('plainExcerpt', () => {
  const marked = ({ snippet, ranges }: { snippet: string; ranges: readonly (readonly [number, number])[] }) => ranges.map(([start, end]) => snippet.slice(start, end));

  it('flattens the excerpt, marks the cut sides, and moves the ranges onto the snippet', () => {
    const excerpt = 'the\n\n  zebra\u202Ecrossing  module\t';
    const start = excerpt.indexOf('zebra');
    const result = plainExcerpt(excerpt, [[start, start + 'zebra\u202Ecrossing'.length]], { before: true, after: true });
    expect(result.snippet).toBe('…the zebra crossing module…');
    expect(marked(result)).toEqual(['zebra crossing']);
    expect(plainExcerpt('結果は 😀', [[0, 2], [4, 6]], { before: false, after: false })).toEqual({ snippet: '結果は 😀', ranges: [[0, 2], [4, 6]] });
  });

  it('stays within the bound and drops what it cuts (property)', () => {
    fc.assert(
      fc.property(anyText, fc.integer({ min: 3, max: 300 }), fc.boolean(), fc.boolean(), (text, max, before, after) => {
        const ranges = text.length === 0 ? [] : [[0, Math.ceil(text.length / 2)] as const];
        const result = plainExcerpt(text, ranges, { before, after }, max);
        expect(codePoints(result.snippet)).toBeLessThanOrEqual(max);
        expect(result.snippet).not.toMatch(/[\p{Cc}\p{Cf}\u2028\u2029]/u);
        for (const [start, end] of result.ranges) expect(0 <= start && start < end && end <= result.snippet.length).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
});
