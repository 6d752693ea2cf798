import z from '@deepseek-ai/schemastery';
import { DEFAULT_CANDIDATE_LIMIT, DEFAULT_MAX_REFERENCE_BYTES, MAX_REFERENCES, type SessionReferenceConfig } from '@sessref/core';

export interface Config extends SessionReferenceConfig {
  /**
   * Opt-in content discovery: the Remote `search` method answers, and
   * `candidates` appends sessions whose conversation matches the query after
   * the title matches. Off by default, so a default install behaves exactly as
   * the official plugin. Needs a `ctx.sessionQuery` backend with full-text
   * search enabled.
   */
  contentSearch?: boolean;
}

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
  // No default, so the resolved configuration of a default install has the official plugin's three keys.
  contentSearch: z
    .boolean()
    .description('Content discovery: the Remote `search` method, and content matches appended to `candidates` (off when unset).'),
});
