import { describe, expect, it } from 'vitest';
import { expectSessionReferenceError } from '../test/errors.js';
import { DEFAULT_CANDIDATE_LIMIT, DEFAULT_MAX_REFERENCE_BYTES, MAX_REFERENCES, isPositiveSafeInteger, resolveConfig, type SessionReferenceConfig } from './config.js';
import { createSessionReferenceCore } from './facade.js';
import type { SessionReferenceStorage } from './types.js';

const INVALID_CONFIG = 'SESSION_REFERENCE_INVALID_CONFIG';

describe('resolveConfig', () => {
  it('defaults to 3 references, 50 candidates and 65536 bytes', () => {
    expect(resolveConfig()).toEqual({ maxReferences: 3, candidateLimit: 50, maxReferenceBytes: 65536 });
    expect(resolveConfig({})).toEqual(resolveConfig());
    expect([MAX_REFERENCES, DEFAULT_CANDIDATE_LIMIT, DEFAULT_MAX_REFERENCE_BYTES]).toEqual([3, 50, 65536]);
  });

  it('fills only the missing values', () => {
    expect(resolveConfig({ maxReferenceBytes: 100 })).toEqual({ maxReferences: 3, candidateLimit: 50, maxReferenceBytes: 100 });
  });

  it.each([1, 2, 3])('accepts maxReferences %i', (maxReferences) => {
    expect(resolveConfig({ maxReferences }).maxReferences).toBe(maxReferences);
  });

  it('accepts any positive safe integer for the other limits', () => {
    const config = { candidateLimit: Number.MAX_SAFE_INTEGER, maxReferenceBytes: 1 };
    expect(resolveConfig(config)).toEqual({ maxReferences: 3, ...config });
  });

  const invalidValues: [string, unknown][] = [
    ['zero', 0],
    ['a negative', -1],
    ['a fraction', 1.5],
    ['NaN', NaN],
    ['Infinity', Infinity],
    ['an unsafe integer', 2 ** 53],
    ['a numeric string', '3'],
    ['a boolean', true],
  ];
  const keys = ['maxReferences', 'candidateLimit', 'maxReferenceBytes'] as const;

  it.each(keys.flatMap((key) => invalidValues.map(([name, value]) => [key, name, value] as const)))(
    'rejects %s set to %s',
    (key, _name, value) => {
      expectSessionReferenceError(() => resolveConfig({ [key]: value }), INVALID_CONFIG);
    },
  );

  it.each([4, 100])('rejects maxReferences %i, over the ceiling of 3', (maxReferences) => {
    expectSessionReferenceError(() => resolveConfig({ maxReferences }), INVALID_CONFIG);
  });

  it('rejects a configuration that is not an object', () => {
    expectSessionReferenceError(() => resolveConfig(null as unknown as SessionReferenceConfig), INVALID_CONFIG);
    expectSessionReferenceError(() => resolveConfig(3 as unknown as SessionReferenceConfig), INVALID_CONFIG);
  });
});

describe('isPositiveSafeInteger', () => {
  it.each([1, 7, Number.MAX_SAFE_INTEGER])('accepts %d', (value) => expect(isPositiveSafeInteger(value)).toBe(true));
  it.each([0, -0, -3, 0.5, NaN, Infinity, 2 ** 53, '1', null, undefined])('refuses %s', (value) =>
    expect(isPositiveSafeInteger(value)).toBe(false),
  );
});

describe('createSessionReferenceCore configuration', () => {
  const untouchable: SessionReferenceStorage = {
    listSessions: () => Promise.reject(new Error('not expected')),
    readTitles: () => Promise.reject(new Error('not expected')),
    readSurface: () => Promise.reject(new Error('not expected')),
  };

  it('fails with INVALID_CONFIG before the resolver exists', () => {
    expectSessionReferenceError(() => createSessionReferenceCore(untouchable, { maxReferences: 4 }), INVALID_CONFIG);
    expectSessionReferenceError(() => createSessionReferenceCore(untouchable, { maxReferenceBytes: 0 }), INVALID_CONFIG);
  });

  it('exposes the resolved configuration', () => {
    expect(createSessionReferenceCore(untouchable, { candidateLimit: 5 }).config).toEqual({
      maxReferences: 3,
      candidateLimit: 5,
      maxReferenceBytes: 65536,
    });
  });
});
