/**
 * The model-relative snapshot budget of the 0.1.7 / 0.2 contract: when no
 * explicit `maxReferenceBytes` is configured, each source may take a fraction
 * of the model's context window, never less than the rc.8 fixed budget.
 */
import { DEFAULT_MAX_REFERENCE_BYTES, invalidConfig } from './config.js';

/** Share of the context window one source may take when the host configures none. */
export const DEFAULT_REFERENCE_CONTEXT_FRACTION = 0.2;

/**
 * Context windows are counted in tokens and budgets in UTF-8 bytes; four
 * bytes per token is the contract's sizing estimate, not a token count.
 */
const BYTES_PER_TOKEN = 4;

/**
 * The budget for a model whose context window is `contextWindow` tokens:
 * `max(64 KiB, floor(contextWindow × 4 × fraction))`. An unknown window
 * (`undefined`) gets the 64 KiB floor, so a host without model metadata
 * behaves as rc.8 did; so does a window that is not a positive finite
 * number, which a budget must never turn into NaN.
 */
export function modelRelativeBudget(contextWindow: number | undefined, fraction: number): number {
  if (contextWindow === undefined || !(contextWindow > 0 && Number.isFinite(contextWindow))) return DEFAULT_MAX_REFERENCE_BYTES;
  return Math.max(DEFAULT_MAX_REFERENCE_BYTES, Math.floor(contextWindow * BYTES_PER_TOKEN * fraction));
}

/**
 * Validate a configured `referenceContextFraction` (default 0.2): a finite
 * number from 0 to 1. NaN and the infinities fail the range test too, with
 * `SESSION_REFERENCE_INVALID_CONFIG`, so a bad value never reaches a budget.
 */
export function resolveReferenceContextFraction(value: unknown = DEFAULT_REFERENCE_CONTEXT_FRACTION): number {
  if (typeof value !== 'number' || !(value >= 0 && value <= 1)) {
    throw invalidConfig(`referenceContextFraction must be a number from 0 to 1, got ${String(value)}`);
  }
  return value;
}
