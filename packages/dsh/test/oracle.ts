/**
 * The official `@deepseek-ai/dsh-session-reference` plugin, mounted into a
 * test host as a black-box oracle for the differential suites.
 */
import type { Fiber } from '@deepseek-ai/cordis';
import * as SessionReferenceInvariant from '@deepseek-ai/dsh-session-reference/invariant';
import { SessionReferenceResolver, type Config as SessionReferenceConfig } from '@deepseek-ai/dsh-session-reference';
import type { Host } from '@sessref/test-support';

/** The official resolver mounted by {@link loadOracle}. */
export interface Oracle {
  /** `ctx.sessionReferenceResolver` of the official package. */
  readonly resolver: SessionReferenceResolver;
  /** The resolver's plugin fiber. */
  readonly fiber: Fiber;
  /** Unload the resolver (and its pre-step listener) plus its invariant companion. */
  dispose(): Promise<void>;
}

/**
 * Plug the official `@deepseek-ai/dsh-session-reference` into a host. It
 * injects only `sessionQuery`; its invariant companion (an empty installer)
 * is mounted too when `ctx.invariants` exists. Config is validated by the
 * plugin's schemastery `Config`; invalid values reject here with
 * `SESSION_REFERENCE_INVALID_CONFIG`. Only one `sessionReferenceResolver`
 * can live in a context, so differential tests use one host per implementation.
 * @param host - host to extend.
 * @param config - `maxReferences`, `candidateLimit`, `maxReferenceBytes`.
 * @returns the mounted oracle.
 */
export async function loadOracle(host: Host, config: SessionReferenceConfig = {}): Promise<Oracle> {
  const companion = host.ctx.get('invariants') === undefined
    ? undefined
    : await host.ctx.plugin(SessionReferenceInvariant);
  const dispose = async (): Promise<void> => {
    await fiber?.dispose();
    await companion?.dispose();
  };
  let fiber: Fiber | undefined;
  try {
    fiber = await host.ctx.plugin(SessionReferenceResolver, config);
  } catch (error) {
    await dispose();
    throw error;
  }
  // The service's context typing is @sessref/dsh's once @sessref/host is in the
  // program, so the official instance is told apart at run time.
  const resolver: unknown = host.ctx.get('sessionReferenceResolver');
  if (!(resolver instanceof SessionReferenceResolver)) {
    await dispose();
    throw new Error('loadOracle: sessionReferenceResolver did not start');
  }
  return { resolver, fiber, dispose };
}
