import type { Engine, SessionSummary } from './engine.js';
import { OWN_SOURCE } from '@sessref/dsh/service';
import { assertSupportedRoot } from '@sessref/dsh/reading';
import { describeFailure } from '../errors.js';
import { didYouMean } from '../did-you-mean.js';
import { CliError, asQueryError } from '../failure.js';

/** A listed session; one whose log header cannot be read has only its id (from its directory) and why. */
export type ListedSession = Omit<SessionSummary, 'createdAt'> & { createdAt?: number };

/**
 * Every session in the root for `list` and the inspector: the readable ones
 * newest first (a failed title read marks one with `readError`), then one
 * entry per log whose header cannot be read, named by its directory and
 * carrying the reason. A damaged log never hides the healthy ones.
 */
export async function listSessions(engine: Engine, signal?: AbortSignal): Promise<ListedSession[]> {
  // Listings may come from kept headers; the root's shape is checked on every listing all the same.
  assertSupportedRoot(engine.root);
  const { sessions, damaged } = await engine.listing(signal);
  damaged.sort((a, b) => (a.sessionId < b.sessionId ? -1 : a.sessionId > b.sessionId ? 1 : 0));
  const foreign = engine.foreignProblems().map((problem) => ({ sessionId: problem.sessionId, source: problem.source, live: false, persisted: true, readError: problem.error }));
  return [...sessions, ...damaged.map((error) => ({ sessionId: error.sessionId, source: OWN_SOURCE, live: false, persisted: true, readError: error })), ...foreign];
}

/** One thing another agent's source could not read, on one line: what every face warns about. */
export interface SourceWarning {
  /** The agent's name (`claude-code`, …). */
  source: string;
  /** The session (or skipped folder, ending in `/`) it concerns; absent for a whole home or source. */
  sessionId?: string;
  code: string;
  message: string;
}

/**
 * What the other agents' sources could not read as of the engine's last
 * listing: each home skipped because it cannot even be checked, each source
 * whose listing failed as a whole, then each session or folder left out. A
 * face lists first, then asks; one that already said which homes were
 * skipped (the CLI's note at start) leaves them out with `homes: false`.
 */
export function sourceWarnings(engine: Engine, options: { homes?: boolean } = {}): SourceWarning[] {
  const agentName = (source: string) => engine.foreignSources.find((found) => found.name === source)?.displayName ?? source;
  const homes = options.homes === false ? [] : engine.skippedHomes.map(({ name, message }): SourceWarning => ({ source: name, code: 'SOURCE_SESSION_UNREADABLE', message }));
  const failed = engine.sourceFailures.map(({ source, reason }): SourceWarning => {
    const failure = describeFailure(reason);
    return { source, code: failure.code, message: `${agentName(source)} sessions left out: ${failure.message}` };
  });
  const sessions = engine.foreignProblems().map(({ sessionId, source, error }): SourceWarning => {
    const failure = describeFailure(error, sessionId);
    return { source, sessionId, code: failure.code, message: failure.message };
  });
  return [...homes, ...failed, ...sessions];
}

/**
 * A session whose log header cannot be read is left out of every listing, so
 * the host answers a read of it with "not found". When its log is there, the
 * answer is that log's damage instead: `error` otherwise.
 */
export async function explainMissing(engine: Engine, error: unknown): Promise<unknown> {
  const sessionId = missingSessionId(error);
  if (sessionId === undefined) return error;
  return (await engine.damageOf(sessionId)) ?? (await withSuggestion(engine, sessionId, error));
}

/**
 * A missing session's error naming the listed ids closest to it (`did you
 * mean "oauth-migration"?`), when one is close: for a session the command
 * was given (`show`, `--target`); a cited one's failed read keeps its own code.
 */
async function withSuggestion(engine: Engine, sessionId: string, error: unknown): Promise<unknown> {
  if (asQueryError(error) === undefined) return error;
  const listed = await engine.sessions().catch(() => []);
  const suggestion = didYouMean(sessionId, listed.map((session) => session.sessionId), (id) => JSON.stringify(id));
  if (suggestion === '') return error;
  return new CliError('SESSION_QUERY_SESSION_NOT_FOUND', `session ${JSON.stringify(sessionId)} not found${suggestion}`, describeFailure(error).hint, { cause: error });
}

/** The id in a host "session not found", as thrown or as the cause of a failed reference read. */
function missingSessionId(error: unknown): string | undefined {
  for (let current = error, depth = 0; current instanceof Error && depth < 8; current = current.cause, depth++) {
    if (asQueryError(current)?.code === 'SESSION_QUERY_SESSION_NOT_FOUND') {
      return /^session "(.*)" not found$/s.exec(current.message)?.[1];
    }
  }
  return undefined;
}
