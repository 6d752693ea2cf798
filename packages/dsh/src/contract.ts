/**
 * Which session-reference contract the host speaks. dsh 0.1.7 changed what
 * its clients require (candidates with `displayTitle` and a required
 * `sameWorkspace`, sources with `capturedFormatVersion`, a model-relative
 * budget, spilled full snapshots), while an rc.8 host must keep getting the
 * official rc.8 plugin's answers byte for byte.
 *
 * The rule is the version of the dsh packages this plugin is linked against,
 * read from `@deepseek-ai/dsh-session/package.json` (a required peer that dsh
 * releases in lockstep with its Web client, whose bundled schema is what
 * rejects an answer). Services are no witness: rc.8 already has
 * `llm.resolveModelInfo`, `ctx.sessionProjections` and the projection cache,
 * and `ctx.spillStore` is optional in 0.1.7, so a 0.1.7 host without it
 * would be mistaken for rc.8 and its `@` picker would go blank. The
 * `hostContract` configuration key overrides the rule for a host whose
 * packages report no usable version.
 */
import { createRequire } from 'node:module';
import { invalidConfig, isJsonObject } from '@sessref/core/internal';

/** `'rc.8'`: dsh 0.1.0-rc.8 to 0.1.6; `'0.1.7'`: dsh 0.1.7 and the 0.2 line. */
export type HostContract = 'rc.8' | '0.1.7';

/** The first release of the newer contract (its prereleases included: 0.1.7-rc.2 shipped it). */
const FIRST_NEWER_RELEASE = [0, 1, 7] as const;

/**
 * The contract of a dsh release: 0.1.7 and later (any prerelease of them
 * too) speak `'0.1.7'`; older releases, and a version that does not parse,
 * speak `'rc.8'`, the contract this plugin is proven on in the real app.
 */
export function contractOfVersion(version: unknown): HostContract {
  const match = typeof version === 'string' ? /^(\d+)\.(\d+)\.(\d+)(?:[-+]|$)/.exec(version) : null;
  if (match === null) return 'rc.8';
  const release = match.slice(1, 4).map(Number);
  for (const [index, part] of release.entries()) {
    const first = FIRST_NEWER_RELEASE[index]!;
    if (part !== first) return part > first ? '0.1.7' : 'rc.8';
  }
  return '0.1.7';
}

/** The contract of the dsh packages this module is linked against (see the module's comment). */
export function linkedContract(): HostContract {
  try {
    const manifest: unknown = createRequire(import.meta.url)('@deepseek-ai/dsh-session/package.json');
    return contractOfVersion(isJsonObject(manifest) ? manifest['version'] : undefined);
  } catch {
    return 'rc.8';
  }
}

/** The configured `hostContract`, else the linked one; any other value is `SESSION_REFERENCE_INVALID_CONFIG`. */
export function resolveHostContract(configured: unknown): HostContract {
  if (configured === undefined) return linkedContract();
  if (configured === 'rc.8' || configured === '0.1.7') return configured;
  throw invalidConfig(`hostContract must be 'rc.8' or '0.1.7', got ${String(configured)}`);
}
