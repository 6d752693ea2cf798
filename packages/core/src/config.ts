import { DEFAULT_CANDIDATE_LIMIT, DEFAULT_MAX_REFERENCE_BYTES, MAX_REFERENCES } from './defaults.js';
import { SessionReferenceError } from './errors.js';

export { DEFAULT_CANDIDATE_LIMIT, DEFAULT_MAX_REFERENCE_BYTES, MAX_REFERENCES };

export interface SessionReferenceConfig {
  /** Distinct sources per message, 1..3. */
  maxReferences?: number;
  /** Discovery limit applied by host faces that take no explicit limit. */
  candidateLimit?: number;
  /** Byte budget of each serialized snapshot. */
  maxReferenceBytes?: number;
}

export type ResolvedSessionReferenceConfig = Required<SessionReferenceConfig>;

export function isPositiveSafeInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
}

/**
 * Fill defaults and validate. Every value must be a positive safe integer and
 * `maxReferences` at most {@link MAX_REFERENCES}.
 */
export function resolveConfig(config: SessionReferenceConfig = {}): ResolvedSessionReferenceConfig {
  if (typeof config !== 'object' || config === null) {
    throw invalidConfig('configuration must be an object');
  }
  const resolved = {
    maxReferences: config.maxReferences ?? MAX_REFERENCES,
    candidateLimit: config.candidateLimit ?? DEFAULT_CANDIDATE_LIMIT,
    maxReferenceBytes: config.maxReferenceBytes ?? DEFAULT_MAX_REFERENCE_BYTES,
  };
  for (const [key, value] of Object.entries(resolved)) {
    if (!isPositiveSafeInteger(value)) throw invalidConfig(`${key} must be a positive safe integer, got ${String(value)}`);
  }
  if (resolved.maxReferences > MAX_REFERENCES) {
    throw invalidConfig(`maxReferences must be at most ${MAX_REFERENCES}, got ${resolved.maxReferences}`);
  }
  return resolved;
}

/** The one error every configuration refusal throws. */
export function invalidConfig(detail: string): SessionReferenceError {
  return new SessionReferenceError(`invalid session reference configuration: ${detail}`, 'SESSION_REFERENCE_INVALID_CONFIG');
}
