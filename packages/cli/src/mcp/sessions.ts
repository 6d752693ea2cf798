/**
 * The sessions an MCP client may cite, through the same engine the CLI and
 * the inspector use (its host, plugin and core, as a dsh step reads them):
 * listing, discovery and the snapshots themselves.
 */
import { isSessionReferenceError, type PreparedContext, type ReferenceTarget, type SessionReferenceContentHit } from '@sessref/core';
import { Engine, type EngineOptions, type SessionSummary } from '../engine/engine.js';
import { explainMissing, sourceWarnings } from '../engine/listing.js';
import { completionQuery, sessionOfArgument } from './arguments.js';
import { phrasesOfHits } from '../phrases.js';

/**
 * An id for the client's conversation that no session sessref reads has: a
 * name no reader gives (every other agent's id starts with its own name, a
 * dsh session's is its directory's), made unique to this server. It only has
 * to differ from theirs, so no `node:crypto` is loaded for it (a tenth of
 * Node's own start).
 */
function clientConversationId(): string {
  return `sessref-mcp-client:${process.pid}:${Date.now().toString(36)}:${Math.random().toString(36).slice(2)}`;
}

export class CitableSessions {
  /** Reasons already reported, so a failing search or an unreadable transcript is said once, not at every keystroke or listing. */
  private readonly reported = new Set<string>();

  private constructor(
    private readonly engine: Engine,
    /**
     * The conversation the client cites into: no session sessref reads (a
     * fresh id), so every session is citable, and the client's working
     * directory, so discovery ranks that directory's sessions first, as
     * the `@` picker of a session started there does.
     */
    private readonly target: ReferenceTarget,
    /** Where a failure that leaves something out of an answer is said (stderr under `sessref mcp`). */
    private readonly report: (line: string) => void,
  ) {}

  /** Open the engine over `options.root` (the other agents' homes as `options.sources` asks) for a client started in `cwd`. */
  static async open(options: EngineOptions, cwd: string, report: (line: string) => void = () => {}): Promise<CitableSessions> {
    return new CitableSessions(await Engine.open(options), { id: clientConversationId(), cwd }, report);
  }

  close(): Promise<void> {
    return this.engine.close();
  }

  /** Distinct sessions one citation may carry (the plugin's `maxReferences`). */
  get maxReferences(): number {
    return this.engine.maxReferences;
  }

  /** Every session a citation can name, as `sessref list` lists them: the root's, then each other agent's. */
  async list(signal?: AbortSignal): Promise<SessionSummary[]> {
    const listed = await this.engine.sessions(signal);
    this.reportSourceProblems();
    return listed;
  }

  /** A stamp per session that changes whenever the session may have (see `Engine.changeStamps`): what a listing-changed notice compares. */
  changeStamps(signal?: AbortSignal): Promise<ReadonlyMap<string, string>> {
    return this.engine.changeStamps(signal);
  }

  /** The log file of each of the root's own sessions among `sessionIds` (other agents' are read in place, unnamed here). */
  logPaths(sessionIds: Iterable<string>, signal?: AbortSignal): Promise<Map<string, string>> {
    return this.engine.logPaths(sessionIds, signal);
  }

  /**
   * The context a dsh step would put after a message citing `sessions`
   * (ids, mentions or URIs, as a user gives them): the engine's citation,
   * so its warning, tag-safe JSON and per-source budget are the step's own,
   * each source labelled with its latest title; a failure names what the
   * CLI would name (a damaged log as itself, not as "not found"). With
   * `around`, each session is carried as its excerpt around that phrase.
   */
  async snapshot(sessions: readonly string[], signal?: AbortSignal, around?: string): Promise<PreparedContext> {
    try {
      return await this.engine.cite(this.target, sessions.map(sessionOfArgument), signal, around === undefined ? undefined : { around });
    } catch (error) {
      throw await explainMissing(this.engine, error);
    }
  }

  /**
   * Sessions for a partly typed argument, as the `@` picker offers them:
   * title, id and cwd matches ranked by working directory, then sessions
   * whose conversation contains the text, none twice, up to the candidate
   * limit. Each is its canonical mention, which the prompt takes back.
   */
  async suggestions(value: string, signal?: AbortSignal): Promise<string[]> {
    const query = completionQuery(value);
    if (query === undefined) return [];
    const limit = this.engine.candidateLimit;
    const titled = await this.engine.candidates(this.target, query, limit, signal);
    this.reportSourceProblems();
    const seen = new Set(titled.map((candidate) => candidate.sessionId));
    const content = titled.length < limit ? await this.contentMatches(query, limit, signal) : [];
    const more = content.filter((hit) => !seen.has(hit.sessionId) && seen.add(hit.sessionId));
    return [...titled, ...more].slice(0, limit).map((candidate) => candidate.mention);
  }

  /**
   * Phrases for a partly typed `around` argument: where content search
   * finds `value`, a few words from each match on (see `phraseOfHit`),
   * of the cited session's hits only once `session` names one. A value
   * search does not take, or a search that fails, offers none.
   */
  async phrases(value: string, session: string | undefined, signal?: AbortSignal): Promise<string[]> {
    const query = completionQuery(value);
    if (query === undefined || query === '') return [];
    const limit = this.engine.candidateLimit;
    const hits = await this.contentMatches(query, limit, signal);
    const cited = citedSession(session);
    return phrasesOfHits(cited === undefined ? hits : hits.filter((hit) => hit.sessionId === cited));
  }

  /**
   * What the other agents' sources could not read as of the last listing
   * (a source that failed, a transcript or folder left out), each distinct
   * line once. The homes skipped at start were said by the command's note.
   */
  private reportSourceProblems(): void {
    for (const warning of sourceWarnings(this.engine, { homes: false })) this.reportOnce(`${warning.code}: ${warning.message}`);
  }

  private reportOnce(line: string): void {
    if (this.reported.has(line)) return;
    this.reported.add(line);
    this.report(line);
  }

  /**
   * Content matches, or none for text the search does not take (as the
   * plugin's picker adds none), and none when content search fails: the
   * title matches are still offered, and why the rest is missing is
   * reported once per distinct reason. Only a cancellation is passed on.
   */
  private async contentMatches(query: string, limit: number, signal: AbortSignal | undefined): Promise<SessionReferenceContentHit[]> {
    try {
      return await this.engine.search(query, { target: this.target, limit, ...(signal === undefined ? {} : { signal }) });
    } catch (error) {
      if (isSessionReferenceError(error) && (error.code === 'SESSION_REFERENCE_INVALID_QUERY' || error.code === 'SESSION_REFERENCE_SEARCH_DISABLED')) return [];
      if (signal?.aborted === true || (isSessionReferenceError(error) && error.code === 'SESSION_REFERENCE_CANCELLED')) throw error;
      this.reportOnce(`content matches left out of completions: ${errorLabel(error)}`);
      return [];
    }
  }
}

/** The session a `session` argument names, when it names one a client could have sent: completion only narrows by it. */
function citedSession(value: string | undefined): string | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  try {
    return sessionOfArgument(value);
  } catch {
    return undefined;
  }
}

/** A failure as a log line names it: its code and message when it has them (no stack). */
function errorLabel(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? `${code}: ${error.message}` : error.message;
}
