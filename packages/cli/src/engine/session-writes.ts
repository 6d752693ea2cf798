import { lstatSync, readdirSync, readlinkSync, rmSync, rmdirSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, sep } from 'node:path';
import type { Context } from '@deepseek-ai/cordis';
import type { UserMessage } from '@deepseek-ai/dsh-llm';
import { Session, adoptSessionEvent, interruptedTurnClosers, type SessionHeader } from '@deepseek-ai/dsh-session';
import { JsonlSessionPersistence } from '@deepseek-ai/dsh-session-persistence-jsonl';
import { currentLogOf, listNames, lockFilesBeside } from '@sessref/dsh/jsonl-root';
import { readRevision, sameRevision, type FileRevision } from '@sessref/platform';
import { appendEnteredMessages, endTurn } from '@sessref/host';
import { findForeignWriters } from './open-writers.js';
import { FileLock, LockBusyError, LockInvalidError } from './session-lock.js';
import { SessionWriteError } from './write-error.js';

/**
 * A log whose last turn is open was left by a dsh that crashed mid-turn, or
 * belongs to a turn dsh is running right now, which keeps writing it (a tool
 * call can keep it quiet for minutes). Only an open turn quiet for this long
 * is closed and appended to, as dsh's own resume would.
 */
const OPEN_TURN_QUIET_MS = 10 * 60_000;

export interface TurnAppend {
  root: string;
  /** The target session's header, as read before the turn was prepared. */
  header: SessionHeader;
  messages: readonly UserMessage[];
  /** How long to wait for another sessref process that is writing the same session. */
  lockWaitMs: number;
  signal?: AbortSignal;
}

/**
 * Append one turn carrying `messages` to a session's log, or change nothing.
 *
 * Under the session lock the log is read afresh, so turn numbers and seqs
 * continue whatever is on disk; the new events (closers of an interrupted
 * turn, the resume marker, the turn) are built on the real `Session`, then go
 * to disk as one batch, which the backend rolls back when the write fails.
 * Right before that append, the log must be unchanged since the read and no
 * other program may have it open for writing. Returns the messages' seqs.
 */
export async function appendTurn(ctx: Context, turn: TurnAppend): Promise<number[]> {
  const persistence = jsonlBackend(ctx);
  const id = turn.header.id;
  const log = persistence.locate(turn.header).path;
  checkInsideRoot(turn.root, log, id);
  checkWritableGeneration(log, id);
  const lock = await lockSession(log, id, turn);
  try {
    const stored = await readStored(persistence, log, id, turn.signal);
    const closers = interruptedTurnClosers(stored.events).map(adoptSessionEvent);
    if (closers.length > 0) checkTurnNotRunning(log, id);
    // As dsh resumes: the open turn closed, the end of the stored history marked (`session/end-seed`).
    const session = Session.fromRestore(id, [...stored.events, ...closers], stored.meta);
    const seqs = appendInterruptedTurn(session, turn.messages);
    turn.signal?.throwIfAborted();
    checkInsideRoot(turn.root, log, id);
    checkNoOtherWriter(log, id);
    if (!sameRevision(revision(log, id), stored.revision)) throw changedMeanwhile(id);
    await persistence.appendBatch(stored.meta, session.events.slice(stored.events.length), true);
    return seqs;
  } finally {
    lock.release();
  }
}

/**
 * Write a new session's events as its first, materializing write, or leave
 * nothing behind: dsh stages that write in a temporary file beside the log,
 * under directories it creates, and a failed write (a full disk) leaves both.
 */
export async function writeNewSession(ctx: Context, root: string, session: Session): Promise<void> {
  const persistence = jsonlBackend(ctx);
  const log = persistence.locate(session.header).path;
  checkInsideRoot(root, log, session.id);
  const created = missingDirectories(dirname(log));
  try {
    await persistence.appendBatch(session.header, session.events, false);
  } catch (error) {
    removeDebris(log, created);
    throw error;
  }
}

/** No model runs here: the turn ends before any step, as an interrupted one. Returns the messages' seqs. */
function appendInterruptedTurn(session: Session, messages: readonly UserMessage[]): number[] {
  const seqs = appendEnteredMessages(session, messages);
  endTurn(session, { kind: 'interrupted' });
  return seqs;
}

/** The stored session, read while its log did not change, and the log's revision at that read. */
async function readStored(persistence: JsonlSessionPersistence, log: string, id: SessionHeader['id'], signal?: AbortSignal) {
  const before = revision(log, id);
  const stored = await persistence.readFrom(id, 0, signal);
  if (!sameRevision(revision(log, id), before)) throw changedMeanwhile(id);
  return { ...stored, revision: before };
}

/** The log's revision: any append or rewrite changes it; a log gone meanwhile is another program's doing. */
function revision(log: string, sessionId: string): FileRevision {
  const current = readRevision(log);
  if (current === undefined) throw changedMeanwhile(sessionId);
  return current;
}

async function lockSession(log: string, sessionId: string, turn: TurnAppend): Promise<FileLock> {
  try {
    return await FileLock.acquire(lockFilesBeside(log).sessref, { waitMs: turn.lockWaitMs, signal: turn.signal });
  } catch (error) {
    if (error instanceof LockInvalidError) throw invalidLock(turn.root, sessionId, error);
    if (!(error instanceof LockBusyError)) throw error;
    const { owner, path } = error;
    const holder = owner === undefined ? 'another process' : `another sessref process (pid ${owner.pid} on ${owner.host})`;
    const waited = turn.lockWaitMs === 0 ? '' : ` (waited ${turn.lockWaitMs / 1000} s)`;
    const hint = `retry when it has finished; if no sessref runs${owner === undefined ? '' : ` as pid ${owner.pid} on ${owner.host}`}, delete ${path}`;
    throw new SessionWriteError(sessionId, 'SESSION_BUSY', `${holder} is writing to this session${waited}`, hint, { cause: error });
  }
}

/** No sessref ever puts anything but its own regular file at the lock's path, so whatever stands there instead holds nothing to wait for. */
function invalidLock(root: string, sessionId: string, error: LockInvalidError): SessionWriteError {
  return new SessionWriteError(
    sessionId,
    'SESSION_LOCK_INVALID',
    `the session lock ${relative(root, error.path)} is ${error.kind}, not a lock file sessref made, so sessref neither waits for it nor removes it`,
    `remove ${error.path}, then retry`,
    { cause: error },
  );
}

/**
 * Refuse a write whose path below the root runs through a symbolic link (the
 * log, its session directory or its project directory): a write must never
 * land outside the root, and dsh's listing already skips symlinked directories.
 */
function checkInsideRoot(root: string, log: string, sessionId: string): void {
  let path = root;
  for (const part of relative(root, log).split(sep)) {
    path = join(path, part);
    if (!lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink()) continue;
    throw new SessionWriteError(
      sessionId,
      'SESSION_LOG_SYMLINK',
      `the log would be written through the symbolic link ${relative(root, path)} (→ ${readlinkSync(path)}); sessref writes only to files inside the root`,
      'replace the link with the real file or directory, or move the session out of the root',
    );
  }
}

/**
 * sessref writes what dsh 0.1.0-rc.8 writes: generation 0. A session whose
 * current log a later dsh wrote (`session.v<N>`) is refused before anything
 * is locked or written: a generation-0 write beside it would never be read
 * again, and writing a later generation faithfully takes that release's
 * writer and its `flock` on the session.
 */
function checkWritableGeneration(log: string, sessionId: string): void {
  const current = currentLogOf(listNames(dirname(log)));
  if (current === undefined || current.generation === 0) return;
  throw new SessionWriteError(
    sessionId,
    'SESSION_WRITE_UNSUPPORTED',
    `this session's log is ${current.fileName}, log format v${current.generation} of a dsh release newer than 0.1.0-rc.8; sessref writes only log format v0`,
    'send the message from the dsh that wrote the session (dsh web or the dsh CLI, e.g. paste the mention there); sessref still lists, shows and cites this session',
  );
}

const IN_USE_HINT = 'close the session in that program or let it finish, then retry';

function checkNoOtherWriter(log: string, sessionId: string): void {
  const [writer] = findForeignWriters([log, lockFilesBeside(log).dsh]);
  if (writer === undefined) return;
  const who = `${writer.command ?? 'a process'} (pid ${writer.pid})`;
  const message = writer.how === 'locked' ? `${who} holds a lock on this session` : `the log is open for writing in ${who}`;
  throw new SessionWriteError(sessionId, 'SESSION_IN_USE', message, IN_USE_HINT);
}

function checkTurnNotRunning(log: string, sessionId: string): void {
  const quietMs = Date.now() - statSync(log).mtimeMs;
  if (quietMs >= OPEN_TURN_QUIET_MS) return;
  throw new SessionWriteError(
    sessionId,
    'SESSION_IN_USE',
    `its last turn is still open and its log was written ${Math.round(quietMs / 1000)} s ago: dsh may be running that turn`,
    `wait for the turn to end; if dsh stopped in the middle of it, resume the session in dsh (which closes the turn) or retry after ${OPEN_TURN_QUIET_MS / 60_000} quiet minutes`,
  );
}

function changedMeanwhile(sessionId: string): SessionWriteError {
  return new SessionWriteError(sessionId, 'SESSION_IN_USE', 'the log changed while sessref was preparing its append: another program is writing it', IN_USE_HINT);
}

/** `directory` and those of its ancestors that do not exist yet, deepest first. */
function missingDirectories(directory: string): string[] {
  const missing: string[] = [];
  for (let path = directory; lstatSync(path, { throwIfNoEntry: false }) === undefined; path = dirname(path)) missing.push(path);
  return missing;
}

/** Best effort: the staged temporary files of a failed first write, then the directories it created, if empty. */
function removeDebris(log: string, created: readonly string[]): void {
  const directory = dirname(log);
  const staged = `${basename(log)}.`;
  try {
    for (const name of readdirSync(directory)) if (name.startsWith(staged) && name.endsWith('.tmp')) rmSync(join(directory, name), { force: true });
  } catch {
    // the directory was never created
  }
  for (const path of created) {
    try {
      rmdirSync(path);
    } catch {
      // no longer empty (another session was created meanwhile) or already gone
    }
  }
}

function jsonlBackend(ctx: Context): JsonlSessionPersistence {
  const persistence = ctx.sessionPersistence;
  if (!(persistence instanceof JsonlSessionPersistence)) throw new Error('sessref writes only through the JSONL session persistence');
  return persistence;
}
