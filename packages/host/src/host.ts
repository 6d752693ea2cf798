import { closeSync, mkdirSync, openSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { Context } from '@deepseek-ai/cordis';
import { AgentRegistry } from '@deepseek-ai/dsh-agent';
import { SessionStore } from '@deepseek-ai/dsh-session';
import { SqliteSessionQueryEngine } from '@deepseek-ai/dsh-session-query-sqlite';
import SessionReferenceResolver, { type Config as ResolverConfig } from '@sessref/dsh';
import { readRegularFile } from '@sessref/dsh/jsonl-root';
import SessionTitleIndex from '@sessref/dsh/title-index';
import { ListedJsonlPersistence } from './snapshot-listing.js';
import { errorCode } from '@sessref/core';

export interface HostOptions {
  /** JSONL session root (zstd, as dsh writes it). */
  root: string;
  resolver?: ResolverConfig;
  /** Where the title index persists; `undefined` keeps it in memory. */
  indexFile?: string;
  /**
   * Where the derived full-text index persists (dsh's SQLite FTS5 backend);
   * `undefined` keeps it in memory. One process owns an index file at a time:
   * while another live process holds it, this one indexes in memory.
   */
  searchIndexFile?: string;
  /**
   * A long-lived process (`sessref serve`): follow file-system events to keep
   * the title index current, and get content search ready in the background
   * (see {@link primeInBackground}).
   */
  watchLogs?: boolean;
}

/**
 * Boot the real dsh host over a session root: store, agent registry, JSONL
 * persistence (refusing damaged or partial logs, see `CheckedJsonlPersistence`;
 * listing from kept headers and a stat walk, or file-system events with
 * `watchLogs`, see {@link ListedJsonlPersistence}),
 * dsh's own `SqliteSessionQueryEngine` as `ctx.sessionQuery` (exact reads are
 * the host's; full-text search opens its derived index at the first search,
 * so commands that never search never load SQLite), the title index, and the
 * sessref plugin with content search on.
 */
export async function bootHost(options: HostOptions): Promise<Context> {
  quietSqliteWarning();
  const ctx = new Context();
  try {
    await ctx.plugin(SessionStore);
    await ctx.plugin(AgentRegistry);
    // The headers the listing keeps persist beside the derived index, one file per root.
    const headersFile = options.searchIndexFile === undefined ? undefined : `${options.searchIndexFile}.headers.json`;
    const persistence = ListedJsonlPersistence.with({ watch: options.watchLogs ?? false, headersFile });
    await ctx.plugin(persistence, { root: options.root, writeBatchMaxDelayMs: 1 });
    const index = claimIndexFile(options.searchIndexFile);
    // Mounted before the engine, so it is let go only after the engine closed the file.
    await ctx.plugin({ name: 'sessref-search-index-owner', apply: (inner: Context) => void inner.effect(() => index.release, 'release the search index') });
    await ctx.plugin(SqliteSessionQueryEngine, { path: index.path, openAt: 'first-search' });
    await ctx.plugin(SessionTitleIndex, {
      root: options.root,
      ...(options.indexFile === undefined ? { persist: false } : { indexFile: options.indexFile }),
      watch: options.watchLogs ?? false,
    });
    await ctx.plugin(SessionReferenceResolver, { contentSearch: true, ...options.resolver });
    if (options.watchLogs) await ctx.plugin({ name: 'sessref-search-priming', inject: ['sessionReferenceResolver'], apply: primeInBackground });
  } catch (error) {
    await ctx.fiber.dispose();
    throw error;
  }
  return ctx;
}

/**
 * Open the derived index and check every session once, without holding up
 * the host (`primeContentSearch` on the plugin), so that a query the server
 * has not seen before answers from the index alone. Stopped when the host
 * stops. Not awaited: a priming that fails or is stopped only leaves later
 * searches to check their hits themselves, as a one-shot process does.
 */
function primeInBackground(ctx: Context): void {
  const resolver = ctx.get('sessionReferenceResolver');
  if (!resolver?.contentSearch) return;
  const stop = new AbortController();
  ctx.effect(() => () => stop.abort(new Error('the host stopped')), 'stop priming content search');
  resolver.primeContentSearch(stop.signal).catch(() => undefined);
}

let quieted = false;

/**
 * Node 22 flags `node:sqlite` as experimental with a one-time warning on
 * stderr when the first search loads it. That notice concerns dsh's backend,
 * not the user, and would break `--json` consumers that read stderr; every
 * other warning still prints.
 */
function quietSqliteWarning(): void {
  if (quieted) return;
  quieted = true;
  const emit = process.emitWarning.bind(process) as (...args: unknown[]) => void;
  process.emitWarning = (warning: string | Error, ...rest: unknown[]) => {
    const text = typeof warning === 'string' ? warning : warning.message;
    if (text.startsWith('SQLite is an experimental feature')) return;
    emit(warning, ...rest);
  };
}

interface IndexClaim {
  /** The index file, or `':memory:'` when it cannot be owned. */
  path: string;
  release(): void;
}

const IN_MEMORY: IndexClaim = { path: ':memory:', release() {} };

/**
 * Own `file` for this process through `<file>.owner` (holding the pid): dsh's
 * backend supports one owner per index file. A file another live process (or
 * another host of this one) owns, or one that cannot be claimed, leaves this
 * host with an in-memory index; an owner file left by a dead process is taken over.
 */
function claimIndexFile(file: string | undefined): IndexClaim {
  if (file === undefined) return IN_MEMORY;
  const owner = `${file}.owner`;
  try {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  } catch {
    return IN_MEMORY;
  }
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      const descriptor = openSync(owner, 'wx', 0o600);
      try {
        writeSync(descriptor, String(process.pid));
      } finally {
        closeSync(descriptor);
      }
      let released = false;
      return {
        path: file,
        release() {
          if (released) return;
          released = true;
          if (ownerPid(owner) === process.pid) rmSync(owner, { force: true });
        },
      };
    } catch (error) {
      if (errorCode(error) !== 'EEXIST') return IN_MEMORY;
      const pid = ownerPid(owner);
      if (pid !== undefined && isAlive(pid)) return IN_MEMORY;
      rmSync(owner, { force: true });
    }
  }
  return IN_MEMORY;
}

/** The pid in an owner file; none when it is absent, not a pid, or not a small regular file (a FIFO there is never waited on). */
function ownerPid(owner: string): number | undefined {
  try {
    const pid = Number(readRegularFile(owner, 64)?.toString('utf8').trim() ?? '');
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errorCode(error) === 'EPERM';
  }
}
