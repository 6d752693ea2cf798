import type { Context } from '@deepseek-ai/cordis';
import type { SessionHeader } from '@deepseek-ai/dsh-session';
import { SessionPersistenceRevision, type SessionPersistenceSnapshot } from '@deepseek-ai/dsh-session-persistence';
import { LogFileTracker } from '@sessref/dsh/title-index';
import { CheckedJsonlPersistence } from './storage.js';

interface KnownHeader {
  /** The inode of the log the header was read from: a replaced file is read again. */
  inode: string;
  header: SessionHeader;
}

/**
 * The JSONL persistence with cheap listings. dsh's session-query engine lists
 * the whole root to resolve every single read (`readSurface()`,
 * `readTitleSnapshot()`, …), and its full-text backend lists snapshots twice
 * per search to decide what to re-index; the JSONL backend answers each
 * listing by decompressing the header of every log. A log's header never
 * changes while its file stays the same, so this keeps the headers it has
 * read and answers from the revisions of a {@link LogFileTracker}: a stat
 * walk of the root, or with `watch` only the paths file-system events named.
 * A snapshot's revision is the log's size, times and inode, so the search
 * backend re-indexes exactly the logs that changed. A log it has not read yet
 * (a new session, a replaced file) makes it take the backend's full listing
 * once, with every check the stricter {@link CheckedJsonlPersistence} runs.
 * Snapshots and their headers are frozen, and shared between listings while
 * nothing changed: readers only ever read them.
 */
export class ListedJsonlPersistence extends CheckedJsonlPersistence {
  /** Follow file-system events instead of walking the root for every listing (long-lived processes). */
  protected watch = false;
  private tracker: LogFileTracker | undefined;
  private readonly headers = new Map<string, KnownHeader>();
  /** The last answer and the revisions it was built from: an unchanged root gets the same (frozen) snapshots again. */
  private last: { revisions: Map<string, string>; snapshots: readonly SessionPersistenceSnapshot[] } | undefined;

  constructor(ctx: Context, config: ConstructorParameters<typeof CheckedJsonlPersistence>[1]) {
    super(ctx, config);
    ctx.effect(() => () => this.tracker?.close(), 'close the listing watchers');
  }

  /** A subclass that follows file-system events. */
  static watching(): typeof ListedJsonlPersistence {
    return class WatchingJsonlPersistence extends ListedJsonlPersistence {
      protected override watch = true;
    };
  }

  override async list(signal?: AbortSignal): Promise<SessionHeader[]> {
    return (await this.listSnapshots(signal)).map((snapshot) => snapshot.header);
  }

  override async listSnapshots(signal?: AbortSignal): Promise<SessionPersistenceSnapshot[]> {
    signal?.throwIfAborted();
    const revisions = await this.revisions();
    if (this.last !== undefined && sameRevisions(this.last.revisions, revisions)) return [...this.last.snapshots];
    for (const [id, revision] of revisions) {
      if (this.headers.get(id)?.inode === inodeOf(revision)) continue;
      await this.readHeaders(revisions, signal);
      break;
    }
    const snapshots: SessionPersistenceSnapshot[] = [];
    for (const [id, revision] of revisions) {
      const known = this.headers.get(id);
      if (known !== undefined) snapshots.push(Object.freeze({ header: known.header, revision: SessionPersistenceRevision(revision) }));
    }
    if (this.headers.size > revisions.size) for (const id of this.headers.keys()) if (!revisions.has(id)) this.headers.delete(id);
    this.last = { revisions, snapshots };
    return [...snapshots];
  }

  private revisions(): Promise<Map<string, string>> {
    const name = this.config.compression === 'none' ? 'session.jsonl' : 'session.jsonl.zstd';
    this.tracker ??= new LogFileTracker(this.config.root, name, this.watch);
    return this.tracker.revisions();
  }

  /** The backend's full listing (with the damage checks), whose headers are kept for the logs the tracker saw. */
  private async readHeaders(revisions: ReadonlyMap<string, string>, signal: AbortSignal | undefined): Promise<void> {
    const snapshots = await super.listSnapshots(signal);
    this.headers.clear();
    for (const { header } of snapshots) {
      const revision = revisions.get(header.id);
      if (revision !== undefined) this.headers.set(header.id, { inode: inodeOf(revision), header: deepFreeze(structuredClone(header)) });
    }
  }
}

function sameRevisions(a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>): boolean {
  if (a.size !== b.size) return false;
  for (const [id, revision] of b) if (a.get(id) !== revision) return false;
  return true;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

/** The tracker's revision is `size:mtimeMs:ctimeMs:ino`. */
function inodeOf(revision: string): string {
  return revision.slice(revision.lastIndexOf(':') + 1);
}
