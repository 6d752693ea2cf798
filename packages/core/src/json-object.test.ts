import { describe, expect, it } from 'vitest';
import { isJsonObject } from './json-object.js';

describe('isJsonObject', () => {
  it('accepts objects with named fields, refuses null, arrays and scalars', () => {
    for (const value of [{}, { a: 1 }, JSON.parse('{"b":[1]}')]) expect(isJsonObject(value)).toBe(true);
    for (const value of [null, undefined, [], [1], 'x', 1, true]) expect(isJsonObject(value)).toBe(false);
  });
});
