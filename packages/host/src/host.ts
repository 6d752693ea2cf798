import { Context } from '@deepseek-ai/cordis';
import { AgentRegistry } from '@deepseek-ai/dsh-agent';
import { SessionStore } from '@deepseek-ai/dsh-session';
import { SqliteSessionQueryEngine } from '@deepseek-ai/dsh-session-query-sqlite';
import SessionReferenceResolver, { type Config as ResolverConfig } from '@sessref/dsh';
import SessionTitleIndex from '@sessref/dsh/title-index';
import { ListedJsonlPersistence } from './snapshot-listing.js';

export interface HostOptions {
  /** JSONL session root (zstd, as dsh writes it). */
  root: string;
  resolver?: ResolverConfig;
  /** Where the title index persists; `undefined` keeps it in memory. */
  indexFile?: string;
  /**
   * Where sessref's content index persists (see `@sessref/sources`, "Search
   * index"); `undefined` keeps it in memory. Processes share one file.
   */
  searchIndexFile?: string;
  /**
   * A long-lived process (`sessref serve`): follow file-system events to keep
   * the title index current, and build the content index in the background
   * (see {@link refreshInBackground}).
   */
  watchLogs?: boolean;
}

/**
 * Boot the real dsh host over a session root: store, agent registry, JSONL
 * persistence (refusing damaged or partial logs, see `CheckedJsonlPersistence`;
 * listing from kept headers and a stat walk, or file-system events with
 * `watchLogs`, see {@link ListedJsonlPersistence}),
 * dsh's own `SqliteSessionQueryEngine` as `ctx.sessionQuery` for exact reads
 * only (its full-text index never opens: content search is sessref's own
 * index), the title index, and the sessref plugin with content search on.
 */
export async function bootHost(options: HostOptions): Promise<Context> {
  quietSqliteWarning();
  const ctx = new Context();
  try {
    await ctx.plugin(SessionStore);
    await ctx.plugin(AgentRegistry);
    // The headers the listing keeps persist beside the content index, one file per root.
    const headersFile = options.searchIndexFile === undefined ? undefined : `${options.searchIndexFile}.headers.json`;
    const persistence = ListedJsonlPersistence.with({ watch: options.watchLogs ?? false, headersFile });
    await ctx.plugin(persistence, { root: options.root, writeBatchMaxDelayMs: 1 });
    await ctx.plugin(SqliteSessionQueryEngine, { path: ':memory:', openAt: 'never' });
    await ctx.plugin(SessionTitleIndex, {
      root: options.root,
      ...(options.indexFile === undefined ? { persist: false } : { indexFile: options.indexFile }),
      ...(options.searchIndexFile === undefined ? {} : { searchIndexFile: options.searchIndexFile }),
      watch: options.watchLogs ?? false,
    });
    await ctx.plugin(SessionReferenceResolver, { contentSearch: true, ...options.resolver });
    if (options.watchLogs) await ctx.plugin({ name: 'sessref-content-index', inject: ['sessionReferenceResolver'], apply: refreshInBackground });
  } catch (error) {
    await ctx.fiber.dispose();
    throw error;
  }
  return ctx;
}

/**
 * Build (or catch up) the content index without holding up the host, so
 * that the first keystroke does not wait for a whole root to be indexed.
 * Stopped when the host stops. Not awaited: a refresh that fails or is
 * stopped only leaves the next search to do the work.
 */
function refreshInBackground(ctx: Context): void {
  const resolver = ctx.get('sessionReferenceResolver');
  if (!resolver?.contentSearch) return;
  const stop = new AbortController();
  ctx.effect(() => () => stop.abort(new Error('the host stopped')), 'stop refreshing the content index');
  resolver.refreshContentIndex(stop.signal).catch(() => undefined);
}

let quieted = false;

/**
 * Node 22 flags `node:sqlite` as experimental with a one-time warning on
 * stderr when the content index first loads it. That notice concerns
 * sessref's internals, not the user, and would break `--json` consumers
 * that read stderr; every other warning still prints.
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
