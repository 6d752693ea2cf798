import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_REFERENCE_CONTEXT_FRACTION, modelRelativeBudget, resolveReferenceContextFraction } from './budget.js';
import { DEFAULT_MAX_REFERENCE_BYTES } from './config.js';
import { isSessionReferenceError } from './errors.js';

describe('modelRelativeBudget', () => {
  // The 0.1.7 contract's own test values.
  it.each([
    { contextWindow: 200_001, fraction: 0.2, budget: 160_000 },
    { contextWindow: 8_000, fraction: 0.2, budget: 65_536 },
    { contextWindow: 200_000, fraction: 0.1, budget: 80_000 },
    { contextWindow: 200_000, fraction: 0, budget: 65_536 },
  ])('gives $budget bytes for a $contextWindow-token window at fraction $fraction', ({ contextWindow, fraction, budget }) => {
    expect(modelRelativeBudget(contextWindow, fraction)).toBe(budget);
  });

  it('gives the 64 KiB floor for an unknown window, or one that is not a positive finite number', () => {
    for (const window of [undefined, 0, -5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(modelRelativeBudget(window, DEFAULT_REFERENCE_CONTEXT_FRACTION)).toBe(DEFAULT_MAX_REFERENCE_BYTES);
    }
  });

  it('is max(64 KiB, floor(window × 4 × fraction)): an integer, never under the floor, monotone in window and fraction', () => {
    const window = fc.integer({ min: 1, max: 10_000_000 });
    const fraction = fc.double({ min: 0, max: 1, noNaN: true });
    fc.assert(
      fc.property(window, window, fraction, fraction, (a, b, f, g) => {
        const budget = modelRelativeBudget(a, f);
        expect(Number.isSafeInteger(budget)).toBe(true);
        expect(budget).toBe(Math.max(DEFAULT_MAX_REFERENCE_BYTES, Math.floor(a * 4 * f)));
        expect(budget).toBeGreaterThanOrEqual(DEFAULT_MAX_REFERENCE_BYTES);
        expect(modelRelativeBudget(Math.max(a, b), f)).toBeGreaterThanOrEqual(modelRelativeBudget(Math.min(a, b), f));
        expect(modelRelativeBudget(a, Math.max(f, g))).toBeGreaterThanOrEqual(modelRelativeBudget(a, Math.min(f, g)));
      }),
    );
  });
});

describe('resolveReferenceContextFraction', () => {
  it('defaults to 0.2 and keeps every number from 0 to 1', () => {
    expect(resolveReferenceContextFraction()).toBe(0.2);
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1, noNaN: true }), (value) => {
        expect(resolveReferenceContextFraction(value)).toBe(value);
      }),
    );
  });

  it('refuses NaN, the infinities, values outside 0..1 and non-numbers with SESSION_REFERENCE_INVALID_CONFIG', () => {
    const invalid = fc.oneof(
      fc.constantFrom<unknown>(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, null, '0.2', true, {}),
      fc.double({ min: 1, max: 1e300, noNaN: true, minExcluded: true }),
      fc.double({ min: -1e300, max: 0, noNaN: true, maxExcluded: true }).filter((value) => !Object.is(value, -0)),
    );
    fc.assert(
      fc.property(invalid, (value) => {
        let thrown: unknown;
        try {
          resolveReferenceContextFraction(value);
        } catch (error) {
          thrown = error;
        }
        expect(isSessionReferenceError(thrown) && thrown.code).toBe('SESSION_REFERENCE_INVALID_CONFIG');
      }),
    );
  });
});
