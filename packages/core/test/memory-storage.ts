/** An in-memory `SessionReferenceStorage` that records every read, for resolver tests. */
import type { SessionHeaderLike, SessionReferenceStorage, SurfaceMessage, SurfaceSnapshot, TitleReadResult } from '../src/types.js';

export interface MemorySession {
  id: string;
  cwd?: string;
  createdAt?: number;
  /** Latest title; an `Error` makes that id's title read fail. */
  title?: string | Error;
  messages?: SurfaceMessage[];
  /** Highest raw-log seq; defaults to the message count, or `null` without messages. */
  capturedThroughSeq?: number | null;
}

export class MemoryStorage implements SessionReferenceStorage {
  private readonly sessions: MemorySession[];
  /** How many times the session list was read. */
  listCalls = 0;
  /** The id batches titles were read for, in call order. */
  readonly titleReads: string[][] = [];
  /** The ids surfaces were read for, in call order. */
  readonly surfaceReads: string[] = [];

  constructor(sessions: readonly MemorySession[]) {
    this.sessions = sessions.map((session, index) => ({ createdAt: index + 1, ...session }));
  }

  async listSessions(_signal?: AbortSignal): Promise<readonly SessionHeaderLike[]> {
    this.listCalls++;
    return this.sessions.map(headerOf);
  }

  async readTitles(sessionIds: readonly string[], _signal?: AbortSignal): Promise<readonly TitleReadResult[]> {
    this.titleReads.push([...sessionIds]);
    return sessionIds.map((sessionId): TitleReadResult => {
      const title = this.find(sessionId)?.title;
      return title instanceof Error ? { sessionId, status: 'rejected', reason: title } : { sessionId, status: 'fulfilled', title };
    });
  }

  async readSurface(sessionId: string, _signal?: AbortSignal): Promise<SurfaceSnapshot> {
    this.surfaceReads.push(sessionId);
    const session = this.find(sessionId);
    if (session === undefined) throw new Error(`no session "${sessionId}"`);
    const messages = structuredClone(session.messages ?? []);
    return {
      session: headerOf(session),
      capturedThroughSeq: session.capturedThroughSeq !== undefined ? session.capturedThroughSeq : messages.length > 0 ? messages.length : null,
      messages,
    };
  }

  private find(sessionId: string): MemorySession | undefined {
    return this.sessions.find((session) => session.id === sessionId);
  }
}

function headerOf(session: MemorySession): SessionHeaderLike {
  const header: { id: string; createdAt: number; cwd?: string } = { id: session.id, createdAt: session.createdAt ?? 0 };
  if (session.cwd !== undefined) header.cwd = session.cwd;
  return header;
}

/** A promise that never settles, like a storage call that hangs and ignores its signal. */
export function never<T>(): Promise<T> {
  return new Promise<T>(() => {});
}

/**
 * Resolve with `'pending'` if `promise` is still unsettled after the event
 * loop has had a full turn (pending I/O and timers included), else with its
 * outcome. Bounds "promptly" in event-loop turns, never in wall-clock time.
 */
export async function outcomeAfterOneTurn<T>(promise: Promise<T>): Promise<{ value: T } | { error: unknown } | 'pending'> {
  const outcome = promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  const turn = new Promise<'pending'>((resolve) => setTimeout(() => resolve('pending'), 0));
  return Promise.race([outcome, turn]);
}
