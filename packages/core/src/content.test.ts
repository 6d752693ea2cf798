import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  MAX_CONTENT_QUERY_LENGTH,
  MAX_SNIPPET_LENGTH,
  excerptAround,
  normalizeContentQuery,
  phraseTokens,
  plainExcerpt,
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

describe('phraseTokens', () => {
  it('folds case and accents, and treats query syntax as separators', () => {
    expect(phraseTokens('Café au LAIT')).toEqual(['cafe', 'au', 'lait']);
    expect(phraseTokens('"alpha" OR (beta*)')).toEqual(['alpha', 'or', 'beta']);
    expect(phraseTokens('***')).toEqual([]);
    // A run of combining marks alone is no word.
    expect(phraseTokens('\u0301 x')).toEqual(['x']);
  });
});

describe('excerptAround', () => {
  it('keeps a snippet that fits, and cuts a longer one around its first match, the ranges moved along', () => {
    expect(excerptAround({ snippet: 'short needle', ranges: [[6, 12]] }, 20)).toEqual({ snippet: 'short needle', ranges: [[6, 12]] });
    const snippet = `${'a'.repeat(50)} 😀 needle ${'b'.repeat(50)}`;
    const at = snippet.indexOf('needle');
    const cut = excerptAround({ snippet, ranges: [[at, at + 6]] }, 20);
    expect(Array.from(cut.snippet)).toHaveLength(20);
    expect(cut.snippet).toMatch(/^…a* 😀 needle b*…$/);
    expect(cut.ranges.map(([start, end]) => cut.snippet.slice(start, end))).toEqual(['needle']);
  });

  it('keeps any snippet within max code points, its first match whole and marked where it was', () => {
    const point = fc.constantFrom('a', 'b', ' ', 'é', '漢', '😀');
    const around = fc.record({ before: fc.array(point, { maxLength: 400 }), after: fc.array(point, { maxLength: 400 }), max: fc.integer({ min: 12, max: 300 }) });
    fc.assert(
      fc.property(around, ({ before, after, max }) => {
        const head = before.join('');
        const snippet = `${head}needle${after.join('')}`;
        const cut = excerptAround({ snippet, ranges: [[head.length, head.length + 6]] }, max);
        expect(Array.from(cut.snippet).length).toBeLessThanOrEqual(max);
        expect(cut.ranges.map(([start, end]) => cut.snippet.slice(start, end))).toEqual(['needle']);
      }),
    );
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
    // Over the bound: cut at the end with `…`, a range past the cut dropped, one across it clipped.
    const long = plainExcerpt(`${'x'.repeat(10)} needle ${'y'.repeat(300)} tail`, [[11, 17], [300, 310], [318, 322]], { before: false, after: false }, 20);
    expect(long.snippet).toBe(`${'x'.repeat(10)} needle y…`);
    expect(marked(long)).toEqual(['needle']);
    expect(plainExcerpt('x'.repeat(300), [], { before: false, after: false }).snippet).toBe(`${'x'.repeat(MAX_SNIPPET_LENGTH - 1)}…`);
  });

  it('stays within the bound and drops what it cuts (property)', () => {
    fc.assert(
      fc.property(anyText, fc.integer({ min: 3, max: 300 }), fc.boolean(), fc.boolean(), (text, max, before, after) => {
        const ranges = text.length === 0 ? [] : [[0, Math.ceil(text.length / 2)] as const];
        const result = plainExcerpt(text, ranges, { before, after }, max);
        expect(codePoints(result.snippet)).toBeLessThanOrEqual(max);
        expect(result.snippet).not.toMatch(/[\p{Cc}\p{Cf}\u2028\u2029]/u);
        expect(result.snippet).toBe(result.snippet.trim());
        expect(isWellFormed(result.snippet)).toBe(true);
        for (const [start, end] of result.ranges) expect(0 <= start && start < end && end <= result.snippet.length).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
});
