import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { Service, type Context } from '@deepseek-ai/cordis';
import { SessionId } from '@deepseek-ai/dsh-session';
import { SessionQueryError } from '@deepseek-ai/dsh-session-query';
import type { SessionHeaderLike, TitleReadResult } from '@sessref/core';
import type { SessionReferenceCatalog } from '@sessref/dsh';
import { LogFileTracker } from './log-files.js';

/** What the index remembers of one persisted session, valid while its log's revision holds. */
interface Entry {
  revision: string;
  header: SessionHeaderLike;
  title?: string;
  /** The title could not be read at this revision: the label falls back to the id. */
  unreadable?: true;
}

interface IndexFile {
  version: typeof INDEX_VERSION;
  root: string;
  entries: Record<string, Entry>;
}

const INDEX_VERSION = 1;

export interface CatalogConfig {
  root: string;
  /** Log file name inside each session directory. */
  fileName: string;
  /** Where the index persists between processes; `undefined` keeps it in memory. */
  indexFile?: string;
  /**
   * Follow file-system events instead of re-statting every log per query:
   * for long-lived processes (the inspector), where it keeps a query over
   * 10,000 sessions in milliseconds. One-shot commands walk once anyway.
   */
  watch?: boolean;
}

/**
 * A title index over a JSONL session root, registered as
 * `ctx.sessionReferenceCatalog` so discovery never re-reads unchanged logs.
 *
 * Every query first brings the log revisions up to date (a stat walk, or
 * only what file-system events named; no file is opened): a new session, a
 * deleted one, or a log appended to or rewritten by another process changes
 * its revision, and only those logs are read again, through
 * `ctx.sessionQuery`. Live sessions of this process answer from the store.
 * The index survives the process in a small JSON file, so a fresh CLI run
 * reads only what changed since the last one.
 */
export class JsonlTitleCatalog extends Service implements SessionReferenceCatalog {
  static inject = ['sessions', 'sessionQuery'];

  private entries: Map<string, Entry> | undefined;
  private readonly logs: LogFileTracker;

  constructor(
    ctx: Context,
    private readonly config: CatalogConfig,
  ) {
    super(ctx, 'sessionReferenceCatalog');
    this.logs = new LogFileTracker(config.root, config.fileName, config.watch ?? false);
    ctx.effect(() => () => this.logs.close(), 'close the log watchers');
  }

  async listSessions(signal?: AbortSignal): Promise<SessionHeaderLike[]> {
    const entries = await this.refresh(signal);
    const byId = new Map<string, SessionHeaderLike>();
    for (const [id, entry] of entries) byId.set(id, entry.header);
    for (const session of this.ctx.sessions.list()) byId.set(session.id, session.header);
    // The order of ctx.sessionQuery.listSessions(): newest first, then by id.
    return [...byId.values()].sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  async readTitles(sessionIds: readonly string[], signal?: AbortSignal): Promise<TitleReadResult[]> {
    const entries = this.entries ?? (await this.refresh(signal));
    const live = new Set(this.ctx.sessions.list().map((session) => session.id as string));
    const unindexed = sessionIds.filter((id) => live.has(id) || !entries.has(id));
    const read = new Map((await this.readFromHost(unindexed, signal)).map((result) => [result.sessionId, result]));
    return sessionIds.map((sessionId) => read.get(sessionId) ?? indexedTitle(sessionId, entries.get(sessionId)));
  }

  /** Bring the index up to date with the files under the root; read only changed logs. */
  private async refresh(signal: AbortSignal | undefined): Promise<Map<string, Entry>> {
    const entries = (this.entries ??= this.load());
    const files = await this.logs.revisions();
    let changed = false;
    for (const id of entries.keys()) {
      if (files.has(id)) continue;
      entries.delete(id);
      changed = true;
    }
    const stale = [...files].filter(([id, revision]) => entries.get(id)?.revision !== revision);
    if (stale.length > 0) {
      await this.reindex(entries, new Map(stale), signal);
      changed = true;
    }
    if (changed) this.save(entries);
    return entries;
  }

  /** Re-read header and title of the logs whose revision changed. */
  private async reindex(entries: Map<string, Entry>, stale: Map<string, string>, signal: AbortSignal | undefined): Promise<void> {
    const snapshots = await this.ctx.sessionQuery.readTitleSnapshots(
      [...stale.keys()].map((id) => SessionId(id)),
      signal,
    );
    const unreadable: string[] = [];
    for (const result of snapshots) {
      const revision = stale.get(result.sessionId)!;
      if (result.status === 'fulfilled') {
        const title = result.value.title?.title;
        entries.set(result.sessionId, { revision, header: result.value.session, ...(title === undefined ? {} : { title }) });
      } else if (!isNotFound(result.reason)) {
        unreadable.push(result.sessionId);
      }
      // Not found: gone between the walk and the read, and the next walk will not see it either.
    }
    if (unreadable.length === 0) return;
    // A log whose title cannot be read still lists, under the header the host lists it with.
    const listed = new Map((await this.ctx.sessionQuery.listSessions(signal)).map((record) => [record.header.id as string, record.header]));
    for (const id of unreadable) {
      const header = listed.get(id);
      if (header) entries.set(id, { revision: stale.get(id)!, header, unreadable: true });
    }
  }

  private async readFromHost(sessionIds: readonly string[], signal: AbortSignal | undefined): Promise<TitleReadResult[]> {
    if (sessionIds.length === 0) return [];
    const results = await this.ctx.sessionQuery.readTitleSnapshots(sessionIds.map(SessionId), signal);
    return results.map((result) =>
      result.status === 'fulfilled'
        ? { sessionId: result.sessionId, status: 'fulfilled', title: result.value.title?.title }
        : { sessionId: result.sessionId, status: 'rejected', reason: result.reason },
    );
  }

  private load(): Map<string, Entry> {
    const file = this.config.indexFile;
    if (file === undefined) return new Map();
    try {
      const parsed = JSON.parse(readFileSync(file, 'utf8')) as IndexFile;
      if (parsed.version !== INDEX_VERSION || parsed.root !== this.config.root) return new Map();
      return new Map(Object.entries(parsed.entries));
    } catch {
      return new Map(); // absent or unreadable: rebuild from the logs
    }
  }

  private save(entries: Map<string, Entry>): void {
    const file = this.config.indexFile;
    if (file === undefined) return;
    const index: IndexFile = { version: INDEX_VERSION, root: this.config.root, entries: Object.fromEntries(entries) };
    try {
      mkdirSync(dirname(file), { recursive: true });
      const temporary = `${file}.${process.pid}.tmp`;
      writeFileSync(temporary, JSON.stringify(index));
      renameSync(temporary, file); // readers never see half an index
    } catch {
      // A cache that cannot be written only costs the next process a re-read.
    }
  }
}

function indexedTitle(sessionId: string, entry: Entry | undefined): TitleReadResult {
  if (entry?.unreadable) return { sessionId, status: 'rejected', reason: new Error(`the log of "${sessionId}" cannot be read`) };
  return { sessionId, status: 'fulfilled', title: entry?.title };
}

function isNotFound(reason: unknown): boolean {
  return reason instanceof SessionQueryError && reason.code === 'SESSION_QUERY_SESSION_NOT_FOUND';
}

/** The per-root index file under `$SESSREF_CACHE_DIR`, else `$XDG_CACHE_HOME/sessref`, else `~/.cache/sessref`. */
export function defaultIndexFile(root: string, env: NodeJS.ProcessEnv = process.env): string {
  const base = env.SESSREF_CACHE_DIR ?? join(env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'sessref');
  const key = createHash('sha256').update(root).digest('hex').slice(0, 16);
  return join(base, `titles-${key}.json`);
}
