/**
 * A dsh root's listing from headers kept between listings and processes:
 * what every listing of a root costs once its logs were read, a stat walk.
 */
import { statSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import type { SessionHeader } from '@deepseek-ai/dsh-session';
import { isJsonObject } from '@sessref/core/internal';
import { LogFileTracker, listSubdirectories, sessionLogs } from '../jsonl-root/index.js';
import { childPath, deepFreeze, readDerivedFile, revisionToken, sameRevision, writeDerivedFile, type DerivedFileKind, type FileRevision } from '@sessref/platform';
import { HEADER_BUDGET_BYTES } from './log-probe.js';
import { readLogHead, type LogHead } from './log-head.js';
import { assertSupportedRoot } from './root-shape.js';
import { listedFacts, type ListedFacts, type ListedLog } from './log-reads.js';
import type { KeptRefusal } from './refusal-memory.js';
import type { RootLogs } from './root-logs.js';
import { isReaderRefusalCode } from './session-log-error.js';

/**
 * A header read from a log, and what it answers for. It is the log's while
 * the log keeps the revision it was read (or last confirmed) at; once the
 * revision changes (an append, or a rewrite in place that may keep the
 * inode, the size, even the times), only while the log's first bytes, which
 * hold its header frame, are still those it was read from ({@link LogHead}).
 * dsh's logs are append-only, so an append costs one read of those bytes,
 * never a listing; a log rewritten with another header is read again. A log
 * of a generation whose appends change its listing
 * ({@link appendsChangeListing}) is read again on every change instead: the
 * directory it is in now, and when its user last sent, are in what was
 * appended, not in its head.
 */
interface KnownHeader extends ListedFacts {
  /** The log's revision ({@link revisionToken}) when the header was read or last confirmed. */
  revision: string;
  /** The log's first bytes, taken before the header was read. */
  head: LogHead;
  header: SessionHeader;
}

/**
 * Whether an append to a log of `generation` can change what a listing
 * shows of it beyond its header: a v4 log's session is placed where its last
 * `working-directory/change` took it (dsh 0.2.1+,
 * generations/working-directory.ts) and dated by its user's last message
 * (generations/last-sent.ts). An older generation's listing is its header
 * alone, which its head answers for.
 */
function appendsChangeListing(generation: number): boolean {
  return generation === 4;
}

/**
 * A root's listing with its headers kept. dsh's session-query engine lists
 * the whole root to resolve every single read (`readSurface()`,
 * `readTitleSnapshot()`, …), and a listing reads the header of every log. A
 * log's header is its first frame, so this keeps the headers it has read (see
 * {@link KnownHeader}) and answers from the revisions of a
 * {@link LogFileTracker}: a stat walk of the root, or with `watch` only the
 * paths file-system events named. A log it has not read yet (a new session,
 * a replaced file) is read alone, with every check {@link RootLogs} makes;
 * with nothing kept, the whole root is listed once. With `headersFile` the
 * headers persist, so a fresh process lists the root with a stat walk.
 * Entries and their headers are frozen, and shared between listings while
 * nothing changed: readers only ever read them.
 */
export class KeptHeaders {
  private loaded = false;
  /** The kept headers could not be saved once already: said once. */
  private unsaved = false;
  private tracker: LogFileTracker | undefined;
  private readonly headers = new Map<string, KnownHeader>();
  /** Logs a listing left out (damaged, refused, duplicated), by their revision token: not read again while they keep it. */
  private readonly leftOut = new Map<string, string>();
  /** The last answer and the revisions it was built from: an unchanged root gets the same (frozen) entries again. */
  private last: { revisions: ReadonlyMap<string, FileRevision>; entries: readonly ListedLog[]; directories: Map<string, bigint> | undefined; writes: number } | undefined;
  /** Writes to the root noted so far (see {@link noteWrite}): a listing taken before one is not reused. */
  private writes = 0;

  constructor(
    readonly logs: RootLogs,
    private readonly options: { watch?: boolean; headersFile?: string; tracker?: LogFileTracker } = {},
  ) {
    this.tracker = options.tracker;
    // A log refused while it keeps its revision is refused again by the next process without being read.
    logs.whenRefused(() => {
      this.loadHeaders();
      this.saveHeaders();
    });
  }

  /** This process is writing to the root (before and after each write): the next {@link list} walks again. */
  noteWrite(): void {
    this.writes += 1;
  }

  /**
   * Headers of every log. Headers do not change when a log grows, and a
   * session appears or disappears only with its directory, which changes the
   * modification time of its project directory (or, for a new project, of
   * the root). So without file-system events the last listing answers while
   * this process has not written and the root and every project directory
   * keep their times; else the root is walked again. Every {@link entries}
   * walks (or, with events, follows) the logs.
   */
  async list(signal?: AbortSignal): Promise<SessionHeader[]> {
    const last = this.last;
    if (this.options.watch !== true && last?.directories !== undefined && last.writes === this.writes && sameTimes(last.directories, this.directoryTimes())) {
      return last.entries.map((entry) => entry.header);
    }
    return (await this.entries(signal)).map((entry) => entry.header);
  }

  /** Every readable log's header and revision, the kept ones answering for unchanged logs. */
  async entries(signal?: AbortSignal): Promise<readonly ListedLog[]> {
    signal?.throwIfAborted();
    const writes = this.writes;
    this.loadHeaders();
    // Taken before the walk: a change during it shows as a different time next time.
    const directories = this.options.watch === true ? undefined : trustedTimes(this.directoryTimes());
    const revisions = await this.revisions();
    if (this.last !== undefined && sameRevisions(this.last.revisions, revisions)) {
      this.last = { ...this.last, directories, writes };
      return this.last.entries;
    }
    const unknown = [...revisions].filter(([id, revision]) => !this.stillKnown(id, revision) && this.leftOut.get(id) !== revisionToken(revision));
    if (unknown.length > 0) {
      // With nothing kept (a first listing) the root is listed; else only the new or changed logs are read.
      if (this.headers.size === 0 && this.leftOut.size === 0) await this.readHeaders(revisions, signal);
      else await this.readSome(unknown, signal);
    }
    const entries: ListedLog[] = [];
    // forEach, not for-of over the entries: in a fresh process this runs cold, where each entry's [key, value] array costs about ten times the call (see refreshIndex of @sessref/search-index).
    revisions.forEach((revision, id) => {
      const known = this.headers.get(id);
      if (known !== undefined) entries.push(Object.freeze(listedEntry(known, revisionToken(revision))));
    });
    for (const kept of [this.headers, this.leftOut]) if (kept.size > 0) for (const id of kept.keys()) if (!revisions.has(id)) kept.delete(id);
    this.last = { revisions, entries, directories, writes };
    return entries;
  }

  /** The session's log (see {@link RootLogs.load}), after the refusals kept between processes are loaded: they answer a read of a refused log too. */
  load(id: string, signal?: AbortSignal): ReturnType<RootLogs['load']> {
    this.loadHeaders();
    return this.logs.load(id, signal);
  }

  /** Stop following file-system events. */
  close(): void {
    this.tracker?.close();
  }

  /** Modification times (ns) of the root and each project directory. */
  private directoryTimes(): Map<string, bigint> {
    const root = this.logs.root;
    const times = new Map<string, bigint>();
    for (const path of [root, ...listSubdirectories(root).map((project) => childPath(root, project))]) {
      const stat = statSync(path, { bigint: true, throwIfNoEntry: false });
      if (stat !== undefined) times.set(path, stat.mtimeNs);
    }
    return times;
  }

  private revisions(): Promise<ReadonlyMap<string, FileRevision>> {
    this.tracker ??= new LogFileTracker(this.logs.root, this.logs.compression, this.options.watch ?? false);
    return this.tracker.revisions();
  }

  /** Whether the kept header of `id` is still its log's at `revision` (see {@link KnownHeader}); a confirmed one moves to `revision`. */
  private stillKnown(id: string, revision: FileRevision): boolean {
    const known = this.headers.get(id);
    if (known === undefined) return false;
    const token = revisionToken(revision);
    if (known.revision === token) return true;
    const logs = this.logs.candidateLogs(id);
    const log = logs[0];
    if (logs.length !== 1 || log === undefined || appendsChangeListing(log.generation)) return false;
    if (readLogHead(log.path, revision, known.head.bytes)?.sha256 !== known.head.sha256) return false;
    known.revision = token;
    return true;
  }

  /** The full log-by-log listing (with the damage checks), whose headers are kept for the logs the tracker saw. */
  private async readHeaders(revisions: ReadonlyMap<string, FileRevision>, signal: AbortSignal | undefined): Promise<void> {
    // Heads before headers: a log rewritten meanwhile then fails its head check next time, never passes it with an old header.
    const heads = new Map<string, LogHead>();
    for (const log of sessionLogs(this.logs.root, this.logs.compression, this.logs.listings.list)) {
      const revision = revisions.get(log.sessionId);
      const head = revision && readLogHead(log.path, revision);
      if (head !== undefined) heads.set(log.sessionId, head);
    }
    const listed = await this.logs.list(signal);
    this.headers.clear();
    this.leftOut.clear();
    for (const entry of listed) {
      const revision = revisions.get(entry.header.id);
      const head = heads.get(entry.header.id);
      if (revision !== undefined && head !== undefined) this.headers.set(entry.header.id, knownHeader(entry, revisionToken(revision), head));
    }
    const ids = new Set<string>(listed.map((entry) => entry.header.id));
    for (const [id, revision] of revisions) if (!ids.has(id)) this.leftOut.set(id, revisionToken(revision));
    this.saveHeaders();
  }

  /**
   * Read the logs of `unknown` alone (each with the checks a whole listing
   * makes, see {@link RootLogs.listOne}), heads before headers as in
   * {@link readHeaders}: one new session, or one damaged log, costs its own
   * read, never the root's. A log the listing leaves out is kept as left out
   * at its revision.
   */
  private async readSome(unknown: readonly (readonly [string, FileRevision])[], signal: AbortSignal | undefined): Promise<void> {
    assertSupportedRoot(this.logs.root, this.logs.listings.list);
    for (const [id, revision] of unknown) {
      const logs = this.logs.candidateLogs(id);
      const head = logs.length === 1 ? readLogHead(logs[0]!.path, revision) : undefined;
      const entry = await this.logs.listOne(id, signal);
      this.headers.delete(id);
      this.leftOut.delete(id);
      if (entry === null) this.leftOut.set(id, revisionToken(revision));
      else if (head !== undefined) this.headers.set(id, knownHeader(entry, revisionToken(revision), head));
    }
    this.saveHeaders();
  }

  /**
   * The headers a previous process kept for this root, once. A missing file
   * is no headers; one that is there and is not used (damaged, of another
   * version or root, not a regular file, in a directory others may write
   * into) is noted in the logs' notices, naming it: the logs are read instead.
   */
  private loadHeaders(): void {
    const file = this.options.headersFile;
    if (this.loaded || file === undefined) return;
    this.loaded = true;
    const root = this.logs.root;
    const saved = readDerivedFile(file, keptHeadersKind(root));
    const unused = (why: string): void => void this.logs.notices.push(`kept headers ${file} not used, read again from the session logs: ${why}`);
    if (saved.state === 'absent') return;
    if (saved.state === 'refused') return unused(saved.why);
    const { headers, leftOut, refusals } = saved.document;
    if (!isJsonObject(headers)) return unused('it is not a saved kept headers file');
    // A kept header of another shape is left out: that log's header is read again.
    for (const [id, known] of Object.entries(headers)) {
      if (isKnownHeader(id, known)) {
        const { revision, head, header } = known;
        this.headers.set(id, { revision, head: { bytes: head.bytes, sha256: head.sha256 }, header: deepFreeze(header), ...listedFacts(known) });
      }
    }
    if (isJsonObject(leftOut)) for (const [id, revision] of Object.entries(leftOut)) if (typeof revision === 'string') this.leftOut.set(id, revision);
    // Why sessref's reader refused a left-out log (see `RootLogs.refusals`), by its path under the root; one of another shape is read again.
    if (isJsonObject(refusals)) {
      for (const [path, refusal] of Object.entries(refusals)) if (isKeptRefusal(path, refusal)) this.logs.refusals.set(join(root, path), refusal);
    }
  }

  /** Replace the saved headers atomically; a file that cannot be written only costs the next process a full listing, said once. */
  private saveHeaders(): void {
    const file = this.options.headersFile;
    if (file === undefined) return;
    const root = this.logs.root;
    // A refusal is kept while its log keeps the revision it was refused at (listed or left out): a changed log is read again.
    const atRevision = (refusal: KeptRefusal) => this.leftOut.get(refusal.sessionId) === refusal.revision || this.headers.get(refusal.sessionId)?.revision === refusal.revision;
    const refusals = [...this.logs.refusals].filter(([, refusal]) => atRevision(refusal));
    const saved: SavedHeaders = {
      headers: Object.fromEntries(this.headers),
      leftOut: Object.fromEntries(this.leftOut),
      refusals: Object.fromEntries(refusals.map(([path, refusal]) => [relative(root, path), refusal])),
    };
    if (writeDerivedFile(file, keptHeadersKind(root), { ...saved }) || this.unsaved) return;
    this.unsaved = true;
    this.logs.notices.push(`kept headers ${file} could not be saved (something other than a file at its path, or a directory that is not this user's alone): the next process reads the logs again`);
  }
}

/**
 * File times come from the kernel's coarse clock (a tick of 1-10 ms), so a
 * directory changed again within the tick of the time we saw keeps that time.
 * Times that recent prove nothing: such a listing is not reused ("racy"
 * timestamps, as git calls them), and the next call walks again.
 */
const RACY_NS = 100_000_000n;

function trustedTimes(times: Map<string, bigint>): Map<string, bigint> | undefined {
  const racyFrom = BigInt(Date.now()) * 1_000_000n - RACY_NS;
  for (const time of times.values()) if (time >= racyFrom) return undefined;
  return times;
}

function sameTimes(a: ReadonlyMap<string, bigint>, b: ReadonlyMap<string, bigint>): boolean {
  if (a.size !== b.size) return false;
  for (const [path, time] of b) if (a.get(path) !== time) return false;
  return true;
}

/** What a listing read of one log keeps, at `revision`: a frozen copy, shared by the listings that follow. */
function knownHeader(entry: ListedLog, revision: string, head: LogHead): KnownHeader {
  return { revision, head, header: deepFreeze(structuredClone(entry.header)), ...listedFacts(entry) };
}

/** A kept header's listing entry at `revision`. */
function listedEntry(known: KnownHeader, revision: string): ListedLog {
  return { header: known.header, revision, ...listedFacts(known) };
}

function sameRevisions(a: ReadonlyMap<string, FileRevision>, b: ReadonlyMap<string, FileRevision>): boolean {
  if (a === b) return true;
  if (a.size !== b.size) return false;
  let same = true;
  b.forEach((revision, id) => (same &&= sameRevision(a.get(id), revision)));
  return same;
}

/** What a kept headers file holds besides its version and root. */
interface SavedHeaders {
  headers: Record<string, KnownHeader>;
  /** The logs a listing left out, by revision token. */
  leftOut: Record<string, string>;
  /** Why sessref's reader refused those of them it read, by the log's path under the root (optional: older files have none). */
  refusals?: Record<string, KeptRefusal>;
}

/**
 * 6: a header carries when its session's user last sent (a file of 5 would
 * date a v4 session by its creation); 5: a header carries the directory its
 * session last moved to (a file of 4 would list a moved session where it
 * started); a file of an older version is read again from the logs. 4: with
 * the logs a listing left out (and, in an optional field, why sessref's
 * reader refused them); 3: a header carries its log's revision and first
 * bytes' digest (2 named the file by device and inode alone, 1 by inode).
 */
const HEADERS_VERSION = 6;

/** The kept headers of `root` as a derived file (see `readDerivedFile`): at most 512 MiB. */
function keptHeadersKind(root: string): DerivedFileKind {
  return { name: 'kept headers file', identity: { version: HEADERS_VERSION, root }, maxBytes: 512 * 1024 * 1024 };
}


/** The optional header fields dsh 0.1.0-rc.8 writes, by the type their value must have. */
const OPTIONAL_HEADER_FIELDS: Readonly<Record<string, 'string' | 'number'>> = {
  cwd: 'string',
  parentSession: 'string',
  seedLength: 'number',
  origin: 'string',
  delegationDepth: 'number',
  agentPreset: 'string',
};

function isLogHead(value: unknown): value is LogHead {
  if (!isJsonObject(value)) return false;
  const { bytes, sha256 } = value;
  return Number.isSafeInteger(bytes) && (bytes as number) >= 0 && (bytes as number) <= HEADER_BUDGET_BYTES && typeof sha256 === 'string' && /^[0-9a-f]{64}$/.test(sha256);
}

/**
 * A kept header as {@link KeptHeaders} saves it, for session `id`: dsh's
 * header fields and no others, and, if any, the absolute directory it moved
 * to and the time its user last sent.
 */
function isKnownHeader(id: string, value: unknown): value is KnownHeader {
  if (!isJsonObject(value) || typeof value['revision'] !== 'string' || !isLogHead(value['head']) || !isJsonObject(value['header'])) return false;
  const { workingDirectory, lastSentAt } = value;
  if (workingDirectory !== undefined && (typeof workingDirectory !== 'string' || !isAbsolute(workingDirectory))) return false;
  if (lastSentAt !== undefined && !(Number.isSafeInteger(lastSentAt) && (lastSentAt as number) >= 0)) return false;
  const header = value['header'];
  if (typeof header['version'] !== 'number' || header['id'] !== id || !Number.isSafeInteger(header['createdAt'])) return false;
  // Field by field, without a copy of the rest: a fresh process checks every kept header this way.
  for (const field of Object.keys(header)) {
    if (REQUIRED_HEADER_FIELDS.has(field)) continue;
    const type = OPTIONAL_HEADER_FIELDS[field];
    if (type === undefined || typeof header[field] !== type) return false;
  }
  return true;
}

const REQUIRED_HEADER_FIELDS: ReadonlySet<string> = new Set(['version', 'id', 'createdAt']);

/** A kept refusal of the log at `path` (under the root, no way out of it), as {@link KeptHeaders} saves it. */
function isKeptRefusal(path: string, value: unknown): value is KeptRefusal {
  if (!isJsonObject(value) || path.split('/').some((segment) => segment === '..' || segment === '') || path.startsWith('/')) return false;
  const { sessionId, revision, code, message } = value;
  return typeof sessionId === 'string' && typeof revision === 'string' && isReaderRefusalCode(code) && typeof message === 'string' && message.length <= 4096;
}
