import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { anyChar } from '../test/arbitraries.js';
import { escapeTagOpeners, stringifyTagSafeJson } from './serialization.js';

/** JSON has no spelling for -0 (it writes 0), so that is the one value a JSON round trip changes. */
function withoutNegativeZero(value: fc.JsonValue): fc.JsonValue {
  if (Object.is(value, -0)) return 0;
  if (Array.isArray(value)) return value.map(withoutNegativeZero);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, withoutNegativeZero(entry as fc.JsonValue)]));
  }
  return value;
}

describe('stringifyTagSafeJson', () => {
  it('writes every "<" as the JSON escape \\u003c', () => {
    expect(stringifyTagSafeJson('</referenced-sessions>')).toBe('"\\u003c/referenced-sessions>"');
    expect(stringifyTagSafeJson({ '<k': ['<', 1] })).toBe('{"\\u003ck":["\\u003c",1]}');
  });

  it('is plain JSON when there is no "<"', () => {
    const value = { a: [1, 'b', null, true], c: '>' };
    expect(stringifyTagSafeJson(value)).toBe(JSON.stringify(value));
  });

  it('holds no "<" and parses back to the same value, for any JSON value', () => {
    const tagHeavyUnit = fc.oneof(anyChar, fc.constantFrom('<', '</referenced-sessions>', '<referenced-sessions>', '\\u003c'));
    fc.assert(
      fc.property(fc.jsonValue({ stringUnit: tagHeavyUnit, maxDepth: 4 }), (value) => {
        const json = stringifyTagSafeJson(value);
        expect(json).not.toContain('<');
        expect(JSON.parse(json)).toStrictEqual(withoutNegativeZero(value));
      }),
      { numRuns: 300 },
    );
  });

  it.each<[string, unknown]>([
    ['undefined', undefined],
    ['a function', () => 1],
    ['a symbol', Symbol('s')],
  ])('rejects %s, which has no JSON text', (_name, value) => {
    expect(() => stringifyTagSafeJson(value)).toThrow(TypeError);
  });

  it('rejects a BigInt', () => {
    expect(() => stringifyTagSafeJson({ n: 10n })).toThrow(TypeError);
  });

  it('rejects a circular structure', () => {
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    expect(() => stringifyTagSafeJson(circular)).toThrow(TypeError);
  });
});

describe('escapeTagOpeners', () => {
  it('returns JSON without "<" as the very same string', () => {
    const json = '{"a":">"}';
    expect(escapeTagOpeners(json)).toBe(json);
  });
});
