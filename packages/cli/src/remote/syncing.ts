/**
 * A sync as sessref runs it, once (`remote add`, `remote sync`) or on an
 * interval (`serve` and `mcp` with `--sync-every`): what to pull and within
 * which bounds, and how it went, recorded in the remotes file.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { AGENT_NAMES, AGENTS, mirroredPaths } from '@sessref/sources/agents';
import { mirrorHome } from '@sessref/sources';
import { DSH_MIRRORED } from '@sessref/dsh/service';
import { CliError } from '../failure.js';
import { POSITIVE_INTEGER, parseInteger } from '../commands/options.js';
import { FileLock, LockBusyError, LockInvalidError } from '../engine/session-lock.js';
import { readRemotes, remotesFolder, writeRemotes, type Remote, type RemotesPlace } from './remotes.js';
import { syncMirror, type SyncPlan, type SyncReport } from './sync.js';

/**
 * A file larger than this is left out of a mirror: far above a transcript
 * (the readers refuse one over 256 MiB) and room for an agent's database,
 * a bound on one stray file filling the cache directory.
 */
const MAX_FILE_BYTES = 1024 * 1024 * 1024;

/** What one remote's folders may hold in all, unless `SESSREF_REMOTE_MAX_BYTES` says otherwise. */
const DEFAULT_MAX_TOTAL_BYTES = 4 * 1024 * 1024 * 1024;

/** A sync that completed: the remote, when, and what it found and moved. */
export interface SyncedRemote extends SyncReport {
  readonly name: string;
  readonly syncedAt: number;
}

/** `SESSREF_REMOTE_MAX_BYTES`, or the default; a mistyped value is a usage error, thrown before the sync starts, never recorded as the remote's failure. */
function maxTotalBytes(env: RemotesPlace['env']): number {
  const raw = env['SESSREF_REMOTE_MAX_BYTES'];
  return raw === undefined ? DEFAULT_MAX_TOTAL_BYTES : parseInteger('SESSREF_REMOTE_MAX_BYTES', raw, POSITIVE_INTEGER, 'unset it, or set a number of bytes such as 4294967296');
}

/** dsh's sessions and every agent's folders, the mirror's place, and the bounds. */
export function syncPlan(place: RemotesPlace, remote: Remote, signal?: AbortSignal): SyncPlan {
  return {
    paths: [DSH_MIRRORED, ...AGENT_NAMES.flatMap((name) => mirroredPaths(AGENTS[name]))],
    mirror: mirrorHome(place, remote.name),
    maxFileBytes: MAX_FILE_BYTES,
    maxTotalBytes: maxTotalBytes(place.env),
    env: place.env,
    ...(signal === undefined ? {} : { signal }),
  };
}

/**
 * Sync `remote` and record how it went in the remotes file: its time, or its
 * failure beside the last good sync. One sync of a remote at a time: while
 * another process syncs it, this one is `REMOTE_BUSY` and records nothing.
 */
export async function syncRecorded(place: RemotesPlace, remote: Remote, plan: SyncPlan): Promise<SyncedRemote | CliError> {
  const lock = await syncLock(place, remote);
  if (lock instanceof CliError) return lock;
  try {
    const report = await syncMirror(remote, plan);
    const syncedAt = Date.now();
    record(place, remote.name, (known) => ({ name: known.name, destination: known.destination, sshOptions: known.sshOptions, syncedAt }));
    return { name: remote.name, syncedAt, ...report };
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    const failure = { at: Date.now(), code: error.code, message: error.message };
    record(place, remote.name, (known) => ({ ...known, failure }));
    return error;
  } finally {
    lock.release();
  }
}

/** The remote's sync lock (`<remotes>/<name>/sync.lock`, the session writer's lock rule: a holder that died is taken over), taken at once or not at all. */
async function syncLock(place: RemotesPlace, remote: Remote): Promise<FileLock | CliError> {
  const folder = join(remotesFolder(place), remote.name);
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  try {
    return await FileLock.acquire(join(folder, 'sync.lock'), { waitMs: 0 });
  } catch (error) {
    if (!(error instanceof LockBusyError || error instanceof LockInvalidError)) throw error;
    return new CliError('REMOTE_BUSY', `${remote.name} is being synced by another sessref process: ${error.message}`, 'run sessref remote sync again when it is done', { cause: error });
  }
}

/** Replace the remote called `name` in the file as read now: a remote removed meanwhile stays removed. */
function record(place: RemotesPlace, name: string, update: (remote: Remote) => Remote): void {
  const remotes = readRemotes(place);
  if (remotes.some((remote) => remote.name === name)) writeRemotes(place, remotes.map((remote) => (remote.name === name ? update(remote) : remote)));
}

/**
 * Sync every remote now, then again `everyMs` after each round ends, for a
 * process that runs until stopped; each outcome is one line to `say`. Never
 * fails the process: a remote that cannot be reached keeps its mirror and
 * is tried again next round, and a bound that cannot be read is said each
 * round. The returned function stops it, killing a sync under way.
 */
export function keepMirrorsSynced(place: RemotesPlace, everyMs: number, say: (line: string) => void): () => Promise<void> {
  const stop = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let round: Promise<void> = Promise.resolve();
  const syncAll = async (): Promise<void> => {
    for (const remote of readRemotes(place)) {
      if (stop.signal.aborted) return;
      const result = await syncRecorded(place, remote, syncPlan(place, remote, stop.signal));
      say(result instanceof CliError ? `remote ${remote.name}: ${result.code}: ${result.message}` : `synced ${result.name}: ${result.transferred} brought`);
    }
  };
  const next = (): void => {
    round = syncAll()
      .catch((error: unknown) => {
        if (!stop.signal.aborted) say(`remote sync: ${error instanceof Error ? error.message : String(error)}`);
      })
      .finally(() => {
        if (stop.signal.aborted) return;
        // The timer never keeps the process alive: the server or the MCP connection does.
        timer = setTimeout(next, everyMs).unref();
      });
  };
  next();
  return async () => {
    stop.abort();
    clearTimeout(timer);
    await round;
  };
}
