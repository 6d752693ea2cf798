import { SessionPersistenceRevision, type SessionPersistenceSnapshot } from '@deepseek-ai/dsh-session-persistence';
import type { SessionHeader, SessionId } from '@deepseek-ai/dsh-session';
import { JsonlSessionPersistence } from '@deepseek-ai/dsh-session-persistence-jsonl';
import { PROCESS_LISTINGS, type DirectoryListings } from '@sessref/platform';
import { type Compression } from '@sessref/dsh/jsonl-root';
import { RootLogs, SessionLogError, type ListedLog, type StoredLog } from '@sessref/dsh/reading';

type Stored = Awaited<ReturnType<JsonlSessionPersistence['loadStored']>>;

/**
 * The dsh JSONL backend, stricter for a process that does not own the logs it
 * reads, and reading every log generation. dsh 0.1.0-rc.8 treats an
 * incomplete final frame as a crash to repair on resume, skips a log whose
 * header frame is incomplete when listing, stops listing at a damaged header
 * without naming its file, checks the whole root before any read, and reads
 * only generation 0 (the rc.8 log name), even where a later dsh wrote a newer
 * generation beside it. This backend lists and reads through sessref's
 * {@link RootLogs} (each session's current log, every generation, refused
 * per session when it is damaged, partial or in a shape sessref does not
 * read), and writes as dsh does.
 */
export class CheckedJsonlPersistence extends JsonlSessionPersistence {
  /**
   * The root's directories as last listed, kept by their revisions (see
   * {@link RootLogs}); a suite may count them through a subclass.
   */
  protected readonly listings: DirectoryListings = PROCESS_LISTINGS;
  private rootLogs: RootLogs | undefined;

  /** sessref's read side of this root, made on first use (after a subclass's fields are set). */
  get logs(): RootLogs {
    return (this.rootLogs ??= this.makeLogs());
  }

  /** Why a derived file of this persistence was not used as found, or not saved, and the project directories this user cannot open. */
  get notices(): readonly string[] {
    return this.logs.notices;
  }

  override async list(signal?: AbortSignal): Promise<SessionHeader[]> {
    return (await this.logs.list(signal)).map((entry) => structuredClone(entry.header));
  }

  override async listSnapshots(signal?: AbortSignal): Promise<SessionPersistenceSnapshot[]> {
    return (await this.logs.list(signal)).map(snapshotOf);
  }

  /** Why the log of `sessionId` cannot be read, when there is one that cannot: a listing leaves such a log out. */
  damageOf(sessionId: string): Promise<SessionLogError | undefined> {
    return this.logs.damageOf(sessionId);
  }

  /** The logs under the root that no listing shows, with why: a header that is cut, damaged or unreadable. */
  damagedLogs(listed: ReadonlySet<string>): Promise<SessionLogError[]> {
    return this.logs.damagedLogs(listed);
  }

  // Every entry point that reads one session checks its directory first: dsh's coordinator keeps
  // prepared sessions while their log's revision holds, and a newer generation written beside the
  // log changes nothing of it, so the superseded log would be served again.
  override async inspect(id: SessionId, signal?: AbortSignal): ReturnType<JsonlSessionPersistence['inspect']> {
    this.logs.assertSupported(id);
    return super.inspect(id, signal);
  }

  override async prepare(id: SessionId, signal?: AbortSignal): ReturnType<JsonlSessionPersistence['prepare']> {
    this.logs.assertSupported(id);
    return super.prepare(id, signal);
  }

  override async readFrom(id: SessionId, fromSeq: number, signal?: AbortSignal): ReturnType<JsonlSessionPersistence['readFrom']> {
    this.logs.assertSupported(id);
    return super.readFrom(id, fromSeq, signal);
  }

  // The revision a read of the log would carry: dsh's coordinator compares the two.
  override async readStoredRevision(id: SessionId, signal?: AbortSignal): ReturnType<JsonlSessionPersistence['readStoredRevision']> {
    signal?.throwIfAborted();
    const token = this.logs.revisionOf(id);
    return token === undefined ? undefined : SessionPersistenceRevision(token);
  }

  override async readRaw(id: SessionId, signal?: AbortSignal): ReturnType<JsonlSessionPersistence['readRaw']> {
    this.logs.assertSupported(id);
    const newer = this.logs.newerGeneration(id);
    if (newer !== undefined) {
      throw new SessionLogError(id, 'SESSION_LOG_UNSUPPORTED', `log ${newer.path} is generation v${newer.generation}: sessref reads its conversation, not its raw text`);
    }
    return super.readRaw(id, signal);
  }

  /** The session's log, every generation read by sessref's own reader (see {@link RootLogs.load}), never by the backend's. */
  override async loadStored(id: SessionId, signal?: AbortSignal): Promise<Stored> {
    const stored = await this.readLog(id, signal);
    return stored && { ...stored, revision: SessionPersistenceRevision(stored.revision) };
  }

  /** The read behind {@link loadStored}: a subclass that keeps what its reads need first says so here. */
  protected readLog(id: string, signal?: AbortSignal): Promise<StoredLog | undefined> {
    return this.logs.load(id, signal);
  }

  /** The read side this persistence answers from: {@link RootLogs} over the root and the listings. */
  protected makeLogs(): RootLogs {
    return new RootLogs(this.config.root, this.logCompression, this.listings);
  }

  protected get logCompression(): Compression {
    return this.config.compression ?? 'zstd';
  }
}

/** A listing entry as dsh's snapshot of it: a copy of the header, and the revision it was read at. */
export function snapshotOf(entry: ListedLog): SessionPersistenceSnapshot {
  return { header: structuredClone(entry.header), revision: SessionPersistenceRevision(entry.revision) };
}
