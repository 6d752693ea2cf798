import { Service, type Context } from '@deepseek-ai/cordis';
import z from '@deepseek-ai/schemastery';
import { SessionId } from '@deepseek-ai/dsh-session';
import { SessionQueryError } from '@deepseek-ai/dsh-session-query';
import type { SessionHeaderLike, TitleReadResult } from '@sessref/core';
import type { SessionReferenceCatalog } from '../catalog.js';
import { defaultIndexFile, defaultSearchIndexFile } from './index-file.js';
import type { Compression } from '../jsonl-root/format.js';
import { TitleCatalog, type TitleReads } from './title-catalog.js';

export interface TitleIndexConfig {
  /** The JSONL session root dsh persists to (`$DSH_HOME/sessions`). */
  root: string;
  /** How dsh stores the root's logs: its `compression` setting (`'none'` for uncompressed logs). */
  compression?: Compression;
  /** Where the index persists between processes; defaults to a per-root file in sessref's cache directory. */
  indexFile?: string;
  /** Keep the index in memory only (and sessref's content index too, unless `searchIndexFile` is set). */
  persist?: boolean;
  /** Where sessref's content index over the root persists (see the resolver's `contentSearch`); defaults to a per-root file in sessref's cache directory. */
  searchIndexFile?: string;
  /** How long the content index waits, once, for another process's lock on its file; default 10 s. */
  searchIndexWaitMs?: number;
  /**
   * Follow file-system events instead of re-statting every log per query:
   * for long-lived processes such as `dsh web`, where a query over 10,000
   * sessions stays in milliseconds. One-shot commands walk once anyway.
   */
  watch?: boolean;
}

export const TitleIndexConfig: z<TitleIndexConfig> = z.object({
  root: z.string().required().description('The JSONL session root dsh persists to.'),
  compression: z.union(['zstd', 'none']).default('zstd').description("How dsh stores the root's logs (its compression setting)."),
  indexFile: z.string().description('Where the index persists; defaults to sessref\'s per-root cache file.'),
  searchIndexFile: z.string().description('Where sessref\'s content index persists; defaults to sessref\'s per-root cache file.'),
  searchIndexWaitMs: z.number().description('How long the content index waits, once, for another process\'s lock on its file; defaults to 10 s.'),
  persist: z.boolean().default(true).description('Save the index between processes.'),
  watch: z.boolean().default(true).description('Follow file-system events (long-lived processes).'),
});

/**
 * The title index of a JSONL session root as a dsh service, registered as
 * `ctx.sessionReferenceCatalog` so discovery never re-reads unchanged logs:
 * a {@link TitleCatalog} whose reads are the host's (live sessions from the
 * store, changed logs through `ctx.sessionQuery`).
 */
export class SessionTitleIndex extends Service implements SessionReferenceCatalog {
  static inject = ['sessions', 'sessionQuery'];
  static Config = TitleIndexConfig;

  private readonly catalog: TitleCatalog;

  constructor(ctx: Context, config: TitleIndexConfig) {
    super(ctx, 'sessionReferenceCatalog');
    const persist = config.persist !== false;
    this.catalog = new TitleCatalog(
      {
        root: config.root,
        ...(config.compression === undefined ? {} : { compression: config.compression }),
        indexFile: persist ? (config.indexFile ?? defaultIndexFile(config.root)) : undefined,
        searchIndexFile: config.searchIndexFile ?? (persist ? defaultSearchIndexFile(config.root) : undefined),
        searchIndexWaitMs: config.searchIndexWaitMs,
        watch: config.watch ?? true,
      },
      hostTitleReads(ctx),
    );
    ctx.effect(() => () => this.catalog.close(), 'close the log watchers');
  }

  get searchIndexFile(): string | undefined {
    return this.catalog.searchIndexFile;
  }

  get searchIndexWaitMs(): number | undefined {
    return this.catalog.searchIndexWaitMs;
  }

  get notices(): readonly string[] {
    return this.catalog.notices;
  }

  listSessions(signal?: AbortSignal): Promise<SessionHeaderLike[]> {
    return this.catalog.listSessions(signal);
  }

  readTitles(sessionIds: readonly string[], signal?: AbortSignal): Promise<TitleReadResult[]> {
    return this.catalog.readTitles(sessionIds, signal);
  }

  changeStamps(): Promise<ReadonlyMap<string, string>> {
    return this.catalog.changeStamps();
  }
}

/** A dsh host's reads for a title catalog: its live store, and `ctx.sessionQuery`'s title snapshots and listing. */
export function hostTitleReads(ctx: Context): TitleReads {
  return {
    live: () => ctx.sessions.list().map((session) => ({ id: session.id, header: session.header, seq: session.seq })),
    async read(sessionIds, signal) {
      const results = await ctx.sessionQuery.readTitleSnapshots(sessionIds.map(SessionId), signal);
      return results.map((result) =>
        result.status === 'fulfilled'
          ? { sessionId: result.sessionId, status: 'fulfilled', header: result.value.session, title: result.value.title?.title }
          : { sessionId: result.sessionId, status: 'rejected', reason: result.reason, missing: isNotFound(result.reason) },
      );
    },
    listHeaders: async (signal) => (await ctx.sessionQuery.listSessions(signal)).map((record) => record.header),
  };
}

function isNotFound(reason: unknown): boolean {
  return reason instanceof SessionQueryError && reason.code === 'SESSION_QUERY_SESSION_NOT_FOUND';
}
