import { closeSync, existsSync, openSync, readSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { SessionHeader, SessionId } from '@deepseek-ai/dsh-session';
import type { SessionPersistenceSnapshot } from '@deepseek-ai/dsh-session-persistence';
import { JsonlSessionPersistence } from '@deepseek-ai/dsh-session-persistence-jsonl';
import { decodeSessionDirectory, listSubdirectories } from '@sessref/dsh/title-index';

/** A session log that cannot be read as a whole, named by its session. */
export class SessionLogError extends Error {
  constructor(
    readonly sessionId: string,
    readonly code: 'SESSION_LOG_CORRUPT' | 'SESSION_LOG_TRUNCATED' | 'SESSION_LOG_UNREADABLE',
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'SessionLogError';
  }
}

type Stored = Awaited<ReturnType<JsonlSessionPersistence['loadStored']>>;

interface LogFile {
  /** The session id the directory name encodes. */
  sessionId: string;
  path: string;
}

/**
 * The dsh JSONL backend, stricter for a process that does not own the logs it
 * reads. dsh treats an incomplete final frame as a crash to repair on resume,
 * skips a log whose header frame is incomplete when listing, and reports a
 * damaged header without naming its file. sessref refuses all three, naming
 * the session, so nothing is ever shown, cited or repaired from a partial log.
 */
export class CheckedJsonlPersistence extends JsonlSessionPersistence {
  override async list(signal?: AbortSignal): Promise<SessionHeader[]> {
    const headers = await this.checkListing(() => super.list(signal));
    await this.checkUnlisted(new Set(headers.map((header) => header.id)));
    return headers;
  }

  override async listSnapshots(signal?: AbortSignal): Promise<SessionPersistenceSnapshot[]> {
    const snapshots = await this.checkListing(() => super.listSnapshots(signal));
    await this.checkUnlisted(new Set(snapshots.map((snapshot) => snapshot.header.id)));
    return snapshots;
  }

  override async loadStored(id: SessionId, signal?: AbortSignal): Promise<Stored> {
    let stored: Stored;
    try {
      stored = await super.loadStored(id, signal);
    } catch (error) {
      throw isCorruption(error) && !signal?.aborted ? this.damaged(id, error) : error;
    }
    if (stored?.tornMarker !== undefined) {
      throw new SessionLogError(
        id,
        'SESSION_LOG_TRUNCATED',
        `log ${this.describe(id)} ends in an incomplete write after byte ${stored.tornMarker.truncateTo}`,
      );
    }
    return stored;
  }

  /** Run a listing; when it fails, name the first session whose log is damaged. */
  private async checkListing<T>(listing: () => Promise<T>): Promise<T> {
    try {
      return await listing();
    } catch (error) {
      for (const file of this.logFiles()) {
        const damage = await this.inspectFile(file);
        if (damage !== undefined) throw damage;
      }
      throw error;
    }
  }

  /**
   * A log file the listing left out has a header dsh cannot read. (One that
   * reads fine was published after the listing looked, and is left alone.)
   */
  private async checkUnlisted(listed: ReadonlySet<string>): Promise<void> {
    for (const file of this.logFiles()) {
      if (listed.has(file.sessionId)) continue;
      const damage = await this.inspectFile(file);
      if (damage !== undefined) throw damage;
    }
  }

  private async inspectFile(file: LogFile): Promise<SessionLogError | undefined> {
    const unreadable = readFailure(file.path);
    if (unreadable !== undefined) {
      return new SessionLogError(file.sessionId, 'SESSION_LOG_UNREADABLE', `log ${this.relative(file.path)} cannot be read: ${unreadable}`);
    }
    try {
      await this.loadStored(file.sessionId as SessionId);
      return undefined;
    } catch (error) {
      return error instanceof SessionLogError ? error : undefined;
    }
  }

  private damaged(id: string, error: unknown): SessionLogError {
    const detail = error instanceof Error ? error.message : String(error);
    return new SessionLogError(id, 'SESSION_LOG_CORRUPT', `log ${this.describe(id)} is damaged: ${detail}`, { cause: error });
  }

  /** Every `<project>/<session>/session.jsonl.zstd` under the root, in listing order. */
  private logFiles(): LogFile[] {
    const root = this.config.root;
    const name = this.config.compression === 'none' ? 'session.jsonl' : 'session.jsonl.zstd';
    const files: LogFile[] = [];
    for (const project of listSubdirectories(root)) {
      for (const dir of listSubdirectories(join(root, project))) {
        const path = join(root, project, dir, name);
        if (existsSync(path)) files.push({ sessionId: decodeSessionDirectory(dir), path });
      }
    }
    return files;
  }

  private describe(id: string): string {
    const file = this.logFiles().find((candidate) => candidate.sessionId === id);
    return file === undefined ? `of "${id}"` : this.relative(file.path);
  }

  private relative(path: string): string {
    return relative(this.config.root, path);
  }
}

/**
 * Whether the backend rejected the bytes of a log, as opposed to the root
 * (encoding mismatch, legacy layout), the runtime (unsupported format version)
 * or the filesystem (permissions): the backend's own corruption messages.
 */
function isCorruption(error: unknown): boolean {
  return error instanceof Error && /^(?:corrupt |empty or header-less )/.test(error.message);
}

/** Why the file at `path` cannot be read (a directory in its place, no permission, …), or `undefined`. */
function readFailure(path: string): string | undefined {
  try {
    const descriptor = openSync(path, 'r');
    try {
      readSync(descriptor, Buffer.alloc(1), 0, 1, 0);
    } finally {
      closeSync(descriptor);
    }
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

