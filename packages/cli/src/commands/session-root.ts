/** The session root a command works on, and the engine over it: what every command but `uri` starts with. */
import { assertSupportedRoot } from '@sessref/host';
import { Engine, type EngineOptions } from '../engine/engine.js';
import { explainMissing } from '../engine/listing.js';
import { progress, styleFor, writeLine, type Io } from '../output.js';
import { checkRoot, describeRoot, noSessions, resolveRoot, type RootState, type SessionRoot } from '../root.js';
import { POSITIVE_INTEGER, parseInteger } from './options.js';

export interface OpenedRoot {
  readonly root: SessionRoot;
  readonly state: RootState;
}

/**
 * Resolve and check the root, refusing a shape sessref does not read before
 * anything is read or written. `announce` prints which root and why on
 * stderr (`list`, `serve`); `demo` leaves dsh's own sessions out, so demo
 * sessions never go into dsh's root unless the user names it.
 */
export function openRoot(flags: { root: string | undefined; json: boolean }, io: Io, options: { announce?: boolean; demo?: boolean } = {}): OpenedRoot {
  const root = resolveRoot(flags.root, io.env, { dsh: options.demo !== true });
  const state = checkRoot(root);
  if (state === 'sessions') assertSupportedRoot(root.path);
  if (options.announce === true) announceRoot(io, root, flags.json);
  return { root, state };
}

/** The root's path, when it holds sessions to work on; else `NO_ROOT`. */
export function sessionsAt({ root, state }: OpenedRoot): string {
  if (state !== 'sessions') throw noSessions(root, state);
  return root.path;
}

/** Which root, and why: one line on stderr, JSON under `--json`. */
function announceRoot(io: Io, root: SessionRoot, json: boolean): void {
  if (json) writeLine(io.stderr, JSON.stringify({ root: { path: root.path, source: root.source, reason: root.reason } }));
  else writeLine(io.stderr, styleFor(io.stderr, io.env).dim(describeRoot(root)));
}

/** Open an engine over `root` (a spinner while it boots), run `work`, close it; a "not found" that is really a damaged log says so. */
export async function withEngine(root: string, io: Io, options: Omit<EngineOptions, 'root'>, work: (engine: Engine) => Promise<void>): Promise<void> {
  const spinner = progress(io, `loading ${root}`);
  const engine = await Engine.open({ root, ...options }).finally(() => spinner.stop());
  try {
    await work(engine);
  } catch (error) {
    throw await explainMissing(engine, error);
  } finally {
    await engine.close();
  }
}

/** `--max-bytes`, as the plugin's budget. */
export function budget(maxBytes: number | undefined): Pick<EngineOptions, 'resolver'> {
  return maxBytes === undefined ? {} : { resolver: { maxReferenceBytes: maxBytes } };
}

/** `SESSREF_LOCK_WAIT_MS`: how long a send waits for another sessref process writing the same session. */
export function lockWait(env: NodeJS.ProcessEnv): Pick<EngineOptions, 'lockWaitMs'> {
  const raw = env.SESSREF_LOCK_WAIT_MS;
  if (raw === undefined) return {};
  const range = { ...POSITIVE_INTEGER, min: 0, words: 'a whole number of milliseconds' };
  return { lockWaitMs: parseInteger('SESSREF_LOCK_WAIT_MS', raw, range, 'unset it, or set a number such as 10000') };
}
