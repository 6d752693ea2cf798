import z from '@deepseek-ai/schemastery';
import { DEFAULT_CANDIDATE_LIMIT, DEFAULT_MAX_REFERENCE_BYTES, DEFAULT_REFERENCE_CONTEXT_FRACTION, MAX_REFERENCES, type SessionReferenceConfig } from '@sessref/core';
import { AGENT_NAMES } from '@sessref/sources/agents';
import { linkedContract, type HostContract } from './contract.js';
import { ALL_SOURCES } from './foreign.js';

export interface Config extends SessionReferenceConfig {
  /**
   * Opt-in content discovery: the Remote `search` method answers, and
   * `candidates` appends sessions whose conversation matches the query after
   * the title matches. Off by default, so a default install behaves exactly as
   * the official plugin (sessref's dsh bundle layer turns it on). Needs no
   * search backend: sessref keeps its own index, in the file the title index
   * names (sessref's cache directory), else in memory.
   */
  contentSearch?: boolean;
  /**
   * The 0.1.7 / 0.2 contract's model-relative budget: the share of the
   * model's context window (at four bytes per token) one source may take when
   * `maxReferenceBytes` is unset, never under 64 KiB. From 0 to 1; 0.2 when unset.
   */
  referenceContextFraction?: number;
  /** The host's contract, when the linked dsh packages cannot tell it (see `./contract.ts`). */
  hostContract?: HostContract;
  /**
   * Other agents whose sessions are offered beside the host's, read in place
   * and never written: any of the agents' names (`claude-code`, …, the
   * `AGENT_NAMES` of `@sessref/sources`), or `'all'` for every agent
   * sessref knows, without naming them. Only those whose home exists on
   * this machine are read. None when unset, so a default install behaves
   * exactly as the official plugin.
   */
  sources?: string[] | typeof ALL_SOURCES;
  /**
   * Redact credentials (API keys, tokens, private keys, passwords in URLs
   * and assignments; see the core's `redactSecrets`) from snapshots of the
   * host's own sessions, and count them in each source's entry. Other
   * agents' sessions are always redacted. Off by default, so a default
   * install answers exactly as the official plugin (sessref's dsh bundle
   * layer turns it on).
   */
  redactSecrets?: boolean;
  /**
   * Excerpts: a mention followed right away by `{around: "PHRASE"}` or
   * `{messages: FIRST-LAST}` cites that part of the session instead of its
   * newest messages (see the core's `formatExcerptSuffix`). The suffix is
   * plain text to the official plugin, so a log holding one reads the same
   * without sessref. Off by default: a default install reads the suffix as
   * plain text, exactly as the official plugin does.
   */
  excerpts?: boolean;
}

/**
 * The plugin's schema for a host of `contract`. It only describes and fills
 * defaults: range checks live in the core, so every invalid value fails with
 * the stable `SESSION_REFERENCE_INVALID_CONFIG` code rather than a schema
 * error. Each contract fills what its official plugin fills: rc.8 the three
 * keys with `maxReferenceBytes` 65536; 0.1.7 no `maxReferenceBytes` (so the
 * model-relative budget applies) and `referenceContextFraction` 0.2.
 */
export function configSchema(contract: HostContract): z<Config> {
  const maxReferenceBytes = z.number().description('UTF-8 budget of one serialized source snapshot.');
  const referenceContextFraction = z
    .number()
    .description('Share of the model context window one source may take when maxReferenceBytes is unset (0 to 1).');
  const rc8 = contract === 'rc.8';
  return z.object({
    maxReferences: z.number().default(MAX_REFERENCES).description('Distinct source sessions one message may reference (1 to 3).'),
    candidateLimit: z.number().default(DEFAULT_CANDIDATE_LIMIT).description('Candidates returned by the Remote `candidates` method.'),
    maxReferenceBytes: rc8 ? maxReferenceBytes.default(DEFAULT_MAX_REFERENCE_BYTES) : maxReferenceBytes,
    // No default under rc.8, so a default install resolves exactly the official plugin's three keys.
    referenceContextFraction: rc8 ? referenceContextFraction : referenceContextFraction.default(DEFAULT_REFERENCE_CONTEXT_FRACTION),
    contentSearch: z
      .boolean()
      .description('Content discovery: the Remote `search` method, and content matches appended to `candidates` (off when unset).'),
    hostContract: z.union([z.const('rc.8'), z.const('0.1.7')]).description('The host\'s session-reference contract; unset reads it from the linked dsh packages.'),
    // A union: a bare array schema fills [], and an unset key must stay unset (the rc.8 config is the official plugin's).
    sources: z
      .union([z.array(z.string()), z.const(ALL_SOURCES)])
      .description(`Other agents' sessions offered as sources, read in place: a list of ${AGENT_NAMES.join(', ')}, or \`all\` for every agent whose home exists (none when unset).`),
    redactSecrets: z
      .boolean()
      .description("Redact credentials from snapshots of this host's own sessions (off when unset; other agents' sessions are always redacted)."),
    excerpts: z
      .boolean()
      .description('Cite the part of a session a mention asks for with {around: "PHRASE"} or {messages: FIRST-LAST} right after it (off when unset: plain text).'),
  });
}

/** The schema for the host this plugin is linked into. */
export const Config: z<Config> = configSchema(linkedContract());
