import { Context } from '@deepseek-ai/cordis';
import { AgentRegistry } from '@deepseek-ai/dsh-agent';
import { SessionStore } from '@deepseek-ai/dsh-session';
import { SessionQueryEngine, SessionQueryError, type SessionEventSearchPage, type SessionSearchHit, type SessionSearchPage } from '@deepseek-ai/dsh-session-query';
import SessionReferenceResolver, { type Config as ResolverConfig } from '@sessref/dsh';
import SessionTitleIndex, { DEFAULT_LOG_FILE_NAME } from '@sessref/dsh/title-index';
import { CheckedJsonlPersistence } from './storage.js';

/**
 * `ctx.sessionQuery` over the store and the JSONL corpus. Exact reads, titles
 * and surfaces are the host's own code; full-text search needs an index
 * backend that sessref does not ship, so those two methods say so.
 */
export class CorpusQuery extends SessionQueryEngine {
  override async searchSessions(): Promise<SessionSearchPage<SessionSearchHit>> {
    throw new SessionQueryError('full-text search is not available in sessref', 'SESSION_QUERY_SEARCH_DISABLED');
  }

  override async searchEvents(): Promise<SessionEventSearchPage> {
    throw new SessionQueryError('full-text search is not available in sessref', 'SESSION_QUERY_SEARCH_DISABLED');
  }
}

export interface HostOptions {
  /** JSONL session root (zstd, as dsh writes it). */
  root: string;
  resolver?: ResolverConfig;
  /** Where the title index persists; `undefined` keeps it in memory. */
  indexFile?: string;
  /** Follow file-system events to keep the title index current (long-lived processes). */
  watchLogs?: boolean;
}

/**
 * Boot the real dsh host over a session root: store, agent registry, JSONL
 * persistence (refusing damaged or partial logs, see {@link CheckedJsonlPersistence}),
 * the session-query engine and the sessref plugin.
 */
export async function bootHost(options: HostOptions): Promise<Context> {
  const ctx = new Context();
  try {
    await ctx.plugin(SessionStore);
    await ctx.plugin(AgentRegistry);
    await ctx.plugin(CheckedJsonlPersistence, { root: options.root, writeBatchMaxDelayMs: 1 });
    await ctx.plugin(CorpusQuery, {});
    await ctx.plugin(SessionTitleIndex, {
      root: options.root,
      fileName: DEFAULT_LOG_FILE_NAME,
      ...(options.indexFile === undefined ? { persist: false } : { indexFile: options.indexFile }),
      watch: options.watchLogs ?? false,
    });
    await ctx.plugin(SessionReferenceResolver, options.resolver ?? {});
  } catch (error) {
    await ctx.fiber.dispose();
    throw error;
  }
  return ctx;
}
