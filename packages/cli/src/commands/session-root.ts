/** The session root a command works on, and the engine over it: what every command but `uri` starts with. */
import { assertSupportedRoot } from '@sessref/dsh/reading';
import { PROCESS_LISTINGS } from '@sessref/platform';
import { Engine, type EngineOptions } from '../engine/engine.js';
import { explainMissing } from '../engine/listing.js';
import { progress, styleFor, terminalSafe, writeLine, type Io } from '../output.js';
import { checkRoot, describeRoot, missingRoot, noSessionsHint, refuseAgentFolder, resolveRoot, type RootState, type SessionRoot } from '../root.js';
import { homedir } from 'node:os';
import { POSITIVE_INTEGER, parseInteger } from './options.js';
import { staleMirrorNotes } from '../remote/remotes.js';
import { homesRead, homesSkipped, parseSources } from './sources.js';

export interface OpenedRoot {
  readonly root: SessionRoot;
  readonly state: RootState;
  /**
   * A run that seeds, on the demo root while it is missing or empty: what
   * `serve --seed-if-empty` writes the demo sessions into. Any other root is
   * served as it is.
   */
  readonly demoToSeed: boolean;
}

/**
 * Resolve and check the root, refusing a shape sessref does not read before
 * anything is read or written: the one place that applies the rule of
 * {@link RootState}, for every command and for `serve`. A missing root is
 * `NO_ROOT`, except the demo root in a run that `seeds` (`seed`, `serve
 * --seed-if-empty`): nothing else ever creates a root. `seeds` also leaves
 * dsh's own sessions out, so demo sessions never go into dsh's root unless
 * the user names it. `writes` refuses a root inside another agent's folder
 * (`new`, `send`, `seed`). `announce` prints which root and why on stderr (`list`,
 * `serve`), then, when it holds no sessions and is not about to be seeded, a
 * hint that fits it.
 */
export function openRoot(flags: { root: string | undefined; json: boolean; sources?: string | undefined }, io: Io, options: { announce?: boolean; seeds?: boolean; writes?: boolean } = {}): OpenedRoot {
  const seeds = options.seeds === true;
  const root = resolveRoot(flags.root, io.env, { dsh: !seeds });
  // Before anything is read: a command that writes never writes into another agent's folder.
  if (options.writes === true) refuseAgentFolder(root, io.env);
  const state = checkRoot(root);
  if (state !== 'missing') assertSupportedRoot(root.path);
  const selection = parseSources(flags.sources);
  if (options.announce === true) announceRoot(io, root, flags.json, homesRead(selection, io.env));
  // An agent's folder that cannot even be checked (a link loop, closed to this user) is skipped by every reader; said once here.
  for (const skipped of homesSkipped(selection, io.env)) announceNotice(io, skipped.error.message, flags.json);
  // A remote that could not be synced is read from its last mirror: a listing says how old that is.
  if (options.announce === true && selection.agents.length > 0) {
    for (const note of staleMirrorNotes({ env: io.env, home: io.env.HOME || homedir() })) announceNotice(io, note, flags.json);
  }
  const demoToSeed = seeds && root.source === 'demo' && (state === 'missing' || state === 'empty');
  if (state === 'missing' && !demoToSeed) throw missingRoot(root);
  if (options.announce === true && (state === 'empty' || state === 'no-sessions') && !demoToSeed) announceNoSessions(io, root, flags.json);
  return { root, state, demoToSeed };
}

/** Which root, and why, and which other agents' homes are read: one line on stderr, JSON under `--json`. */
function announceRoot(io: Io, root: SessionRoot, json: boolean, homes: readonly { name: string; displayName: string; home: string }[]): void {
  const sources = homes.map(({ name, home }) => ({ name, home }));
  if (json) writeLine(io.stderr, JSON.stringify({ root: { path: root.path, source: root.source, reason: root.reason }, ...(sources.length === 0 ? {} : { sources }) }));
  else writeLine(io.stderr, styleFor(io.stderr, io.env).dim(terminalSafe(describeRoot(root) + homes.map((local) => `; ${local.displayName} sessions in ${local.home}`).join(''))));
}

/** A root without sessions is an answer, not an error: a hint on stderr (a JSON object under `--json`) says what fits it. */
function announceNoSessions(io: Io, root: SessionRoot, json: boolean): void {
  const message = noSessionsHint(root, io.env);
  if (json) writeLine(io.stderr, JSON.stringify({ hint: { code: 'NO_SESSIONS', message } }));
  else writeLine(io.stderr, `${styleFor(io.stderr, io.env).cyan('hint')} ${terminalSafe(message)}`);
}

/**
 * Open an engine over `root` (a spinner while it boots), run `work`, close
 * it; a "not found" that is really a damaged log says so. Why a derived file
 * was not used as found is said once on stderr, whether `work` succeeds or not.
 */
export async function withEngine(root: string, io: Io, options: Omit<EngineOptions, 'root'> & { json: boolean }, work: (engine: Engine) => Promise<void>): Promise<void> {
  const { json, ...engineOptions } = options;
  const spinner = progress(io, `loading ${root}`);
  const engine = await Engine.open({ root, ...indexWait(io.env), ...engineOptions }).finally(() => spinner.stop());
  try {
    await work(engine);
  } catch (error) {
    throw await explainMissing(engine, error);
  } finally {
    for (const notice of engine.takeNotices()) announceNotice(io, notice, json);
    await engine.close();
  }
}

/** A derived file not used as found, or an agent's folder skipped: `sessref: note: …` on stderr, a `{"note": …}` object under `--json`; never on stdout. */
function announceNotice(io: Io, message: string, json: boolean): void {
  if (json) writeLine(io.stderr, JSON.stringify({ note: { message } }));
  else writeLine(io.stderr, `sessref: note: ${terminalSafe(message)}`);
}

/** `--max-bytes`, as the plugin's budget. */
export function budget(maxBytes: number | undefined): Pick<EngineOptions, 'resolver'> {
  return maxBytes === undefined ? {} : { resolver: { maxReferenceBytes: maxBytes } };
}

/** `--sources`, as the other agents whose sessions the engine reads beside the root's. */
export function sourcesRead(sources: string | undefined): Pick<EngineOptions, 'sources'> {
  return { sources: parseSources(sources).agents };
}

/** `SESSREF_LOCK_WAIT_MS`: how long a send waits for another sessref process writing the same session. */
export function lockWait(env: NodeJS.ProcessEnv): Pick<EngineOptions, 'lockWaitMs'> {
  const waitMs = millisecondsFrom(env, 'SESSREF_LOCK_WAIT_MS');
  return waitMs === undefined ? {} : { lockWaitMs: waitMs };
}

/**
 * `SESSREF_INDEX_WAIT_MS`: the one wait for another process's lock on the
 * content index file (default 10 s); past it the command searches an index
 * in memory of its own, and says so in a note.
 */
export function indexWait(env: NodeJS.ProcessEnv): Pick<EngineOptions, 'searchIndexWaitMs'> {
  const waitMs = millisecondsFrom(env, 'SESSREF_INDEX_WAIT_MS');
  return waitMs === undefined ? {} : { searchIndexWaitMs: waitMs };
}

/** A wait in milliseconds set by the environment variable `name`, undefined when unset. */
function millisecondsFrom(env: NodeJS.ProcessEnv, name: string): number | undefined {
  const raw = env[name];
  if (raw === undefined) return undefined;
  const range = { ...POSITIVE_INTEGER, min: 0, words: 'a whole number of milliseconds' };
  return parseInteger(name, raw, range, 'unset it, or set a number such as 10000');
}

/**
 * Answer every look at the root's directories and logs from the first one
 * until the returned function is called (see `DirectoryListings`): for a
 * command that writes nothing and ends.
 */
export function holdFirstLook(): () => void {
  return PROCESS_LISTINGS.holdFirstLook();
}
