/**
 * Invariant companion of `@sessref/dsh`: a cordis plugin that reserves the
 * package's name in `ctx.invariants` (dsh-invariants), as every dsh package
 * does from its `./invariant` export.
 *
 * It installs no run-time check. The resolver has no second source of truth
 * to reconcile while it runs: configuration is range-checked before the
 * service is published, every refusal is a coded error at the operation that
 * caused it, and snapshots are read once through `ctx.sessionQuery`. The
 * contracts are proved by this package's tests instead.
 * @module @sessref/dsh/invariant
 */
import type { Context } from '@deepseek-ai/cordis';
import type { InvariantInstaller } from '@deepseek-ai/dsh-invariants';

/** Cordis plugin name, the same as the official plugin's companion. */
export const name = 'session-reference-invariant';

/** The companion needs the invariant registry. */
export const inject = ['invariants'];

const install: InvariantInstaller = () => {};

/**
 * Register the companion.
 * @param ctx - a context carrying `ctx.invariants`.
 * @returns the registration's disposer.
 */
export const apply = async (ctx: Context): Promise<() => void> => ctx.invariants.register('@sessref/dsh', install);
