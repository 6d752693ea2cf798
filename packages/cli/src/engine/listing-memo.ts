/**
 * The root's own listing kept between processes: what `sessref list` shows
 * of the root's sessions and damaged logs, saved with the fingerprint of the
 * walk it was made after (see `rootFingerprint`), and given again by a
 * process whose walk spells the same fingerprint, without opening the kept
 * headers or the title index. A changed, added or removed file of any
 * session makes the next listing the full one, which keeps its answer again.
 */
import { OWN_SOURCE } from '@sessref/dsh/service';
import { SessionLogError, isSessionLogErrorCode, rootFingerprint } from '@sessref/dsh/reading';
import { readDerivedFile, writeDerivedFile, type DerivedFileKind } from '@sessref/platform';
import type { Listing, SessionSummary } from './listed.js';

/** A session as saved: its id, creation time, last send, current directory, title (each `null` when it has none) and its log's refusal as code and message. */
type SavedSession = [string, number, number | null, string | null, string | null, [string, string] | null];

/**
 * 1: the first. The identity also names the root and whether the root's
 * own titles are redacted (the `redactSecrets` key), which change what is
 * listed without changing a file of the root.
 */
const LISTING_VERSION = 1;

export class ListingMemo {
  /** The answer this process last gave or read, by its fingerprint: a second listing of an unchanged root reads no file. */
  private last: { fingerprint: string; listing: Listing } | undefined;
  /** Whether the saved file was read already (it is read once). */
  private read = false;
  private readonly kind: DerivedFileKind;

  constructor(
    private readonly root: string,
    private readonly file: string,
    redactsTitles: boolean,
    /** Where a saved listing that is there and not used is named. */
    private readonly notices: string[],
  ) {
    this.kind = { name: 'kept listing', identity: { version: LISTING_VERSION, root, redacted: redactsTitles ? 1 : 0 }, maxBytes: 512 * 1024 * 1024 };
  }

  /**
   * The root's own listing: the kept one while the root's fingerprint is the
   * one it was kept with, else `list()`'s, kept for the next process when the
   * root had settled and every failure in it is a log's refusal (any other
   * may not happen again, so it is not kept).
   */
  async listing(list: () => Promise<Listing>): Promise<Listing> {
    const fingerprint = rootFingerprint(this.root);
    const kept = this.recall(fingerprint.text);
    if (kept !== undefined) return copied(kept);
    const listing = await list();
    this.last = { fingerprint: fingerprint.text, listing: copied(listing) };
    const saved = fingerprint.settled && savedSessions(listing.sessions);
    if (saved !== false) writeDerivedFile(this.file, this.kind, { fingerprint: fingerprint.text, sessions: saved, damaged: listing.damaged.map(({ sessionId, code, message }) => [sessionId, code, message]) });
    return listing;
  }

  private recall(fingerprint: string): Listing | undefined {
    if (this.last?.fingerprint === fingerprint) return this.last.listing;
    if (this.read) return undefined;
    this.read = true;
    const saved = readDerivedFile(this.file, this.kind);
    if (saved.state === 'absent') return undefined;
    const unused = (why: string): undefined => void this.notices.push(`kept listing ${this.file} not used, listed again from the session logs: ${why}`);
    if (saved.state === 'refused') return unused(saved.why);
    const kept = saved.document['fingerprint'];
    // A listing kept for another state of the root is only out of date: the full listing replaces it.
    if (typeof kept === 'string' && kept !== fingerprint) return undefined;
    const listing = typeof kept === 'string' ? listingOf(saved.document) : undefined;
    if (listing === undefined) return unused('it is not a saved kept listing');
    this.last = { fingerprint, listing };
    return listing;
  }
}

/** A listing the caller may sort or extend: its own arrays, the same entries. */
function copied(listing: Listing): Listing {
  return { sessions: [...listing.sessions], damaged: [...listing.damaged] };
}

/** The sessions as saved, or `false` when one failed otherwise than by its log's refusal. */
function savedSessions(sessions: readonly SessionSummary[]): SavedSession[] | false {
  const saved: SavedSession[] = [];
  for (const { sessionId, createdAt, lastSentAt, cwd, title, readError } of sessions) {
    const refusal = readError === undefined ? undefined : logRefusalIn(readError);
    if (readError !== undefined && refusal === undefined) return false;
    saved.push([sessionId, createdAt, lastSentAt ?? null, cwd ?? null, title ?? null, refusal === undefined ? null : [refusal.code, refusal.message]]);
  }
  return saved;
}

/** The log's refusal a failure is, or was caused by, as every face describes it (see classify.ts). */
function logRefusalIn(error: unknown): SessionLogError | undefined {
  for (let current = error, depth = 0; current instanceof Error && depth < 16; current = current.cause, depth++) {
    if (current instanceof SessionLogError) return current;
  }
  return undefined;
}

/** The listing a saved document holds; `undefined` for a document of another shape. */
function listingOf(document: Record<string, unknown>): Listing | undefined {
  const { sessions, damaged } = document;
  if (!Array.isArray(sessions) || !Array.isArray(damaged)) return undefined;
  const listing: Listing = { sessions: [], damaged: [] };
  for (const saved of sessions as unknown[]) {
    const session = sessionOf(saved);
    if (session === undefined) return undefined;
    listing.sessions.push(session);
  }
  for (const saved of damaged as unknown[]) {
    if (!isSavedDamage(saved)) return undefined;
    listing.damaged.push(new SessionLogError(saved[0], saved[1], saved[2]));
  }
  return listing;
}

function sessionOf(saved: unknown): SessionSummary | undefined {
  if (!Array.isArray(saved) || saved.length !== 6) return undefined;
  const [sessionId, createdAt, lastSentAt, cwd, title, refusal] = saved as unknown[];
  if (typeof sessionId !== 'string' || !Number.isSafeInteger(createdAt) || !(lastSentAt === null || Number.isSafeInteger(lastSentAt))) return undefined;
  if (!(cwd === null || typeof cwd === 'string') || !(title === null || typeof title === 'string')) return undefined;
  if (!(refusal === null || isSavedRefusal(refusal))) return undefined;
  return {
    sessionId,
    source: OWN_SOURCE,
    ...(title === null ? {} : { title }),
    ...(cwd === null ? {} : { cwd }),
    createdAt: createdAt as number,
    ...(lastSentAt === null ? {} : { lastSentAt: lastSentAt as number }),
    live: false,
    persisted: true,
    ...(refusal === null ? {} : { readError: new SessionLogError(sessionId, refusal[0], refusal[1]) }),
  };
}

function isSavedRefusal(value: unknown): value is [SessionLogError['code'], string] {
  return Array.isArray(value) && value.length === 2 && isSessionLogErrorCode(value[0]) && typeof value[1] === 'string';
}

function isSavedDamage(value: unknown): value is [string, SessionLogError['code'], string] {
  return Array.isArray(value) && value.length === 3 && typeof value[0] === 'string' && isSessionLogErrorCode(value[1]) && typeof value[2] === 'string';
}
