/**
 * What a listing gives every face: each session as it is shown, and the
 * logs of the root whose header cannot be read.
 */
import type { SessionLogError } from '@sessref/dsh/reading';

/** A session as listings show it. */
export interface SessionSummary {
  sessionId: string;
  /** Where it is read from: `dsh` for the root's own sessions, else the agent's name (`claude-code`, …), `<host>/<agent>` for another machine's. */
  source: string;
  /** The remote the session was mirrored from (`sessref remote`); absent for this machine's sessions. */
  host?: string;
  title?: string;
  /** The directory the session is in now: where it moved to, when its log records a move (dsh 0.2.1+), else the one it started in. */
  cwd?: string;
  createdAt: number;
  /**
   * When the user last sent a message in it, for a session whose log is v4
   * (dsh 0.1.7 and 0.2): dsh 0.2 dates a session by that moment, and so do
   * sessref's listings; absent for older logs, dated by `createdAt`.
   */
  lastSentAt?: number;
  live: boolean;
  persisted: boolean;
  /** Why the session's log could not be read, when it could not (listing reads only headers). */
  readError?: unknown;
}

/** A listing: the root's own part of it (as kept between processes), or the root's and the other agents' together. */
export interface Listing {
  /** Every session whose log header could be read, the root's newest first; a failed title read carries why. */
  sessions: SessionSummary[];
  /** The logs whose header cannot be read, with why. */
  damaged: SessionLogError[];
}

