/**
 * The contract's default limits, with nothing else: a host's help text and
 * flag defaults read them without loading the contract itself
 * (`@sessref/core/defaults`).
 */

/** Hard ceiling on distinct sources one message may cite. */
export const MAX_REFERENCES = 3;
/** Candidates returned by discovery when the caller names no limit. */
export const DEFAULT_CANDIDATE_LIMIT = 50;
/** UTF-8 budget of one serialized snapshot data object. */
export const DEFAULT_MAX_REFERENCE_BYTES = 65536;
