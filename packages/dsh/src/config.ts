import z from '@deepseek-ai/schemastery';
import { DEFAULT_CANDIDATE_LIMIT, DEFAULT_MAX_REFERENCE_BYTES, MAX_REFERENCES, type SessionReferenceConfig } from '@sessref/core';

export type Config = SessionReferenceConfig;

/**
 * The plugin's schema. It only describes and fills defaults: range checks
 * live in the core's `resolveConfig`, so every invalid value fails with the
 * stable `SESSION_REFERENCE_INVALID_CONFIG` code rather than a schema error.
 */
export const Config: z<Config> = z.object({
  maxReferences: z.number().default(MAX_REFERENCES).description('Distinct source sessions one message may reference (1 to 3).'),
  candidateLimit: z.number().default(DEFAULT_CANDIDATE_LIMIT).description('Candidates returned by the Remote `candidates` method.'),
  maxReferenceBytes: z
    .number()
    .default(DEFAULT_MAX_REFERENCE_BYTES)
    .description('UTF-8 budget of one serialized source snapshot.'),
});
