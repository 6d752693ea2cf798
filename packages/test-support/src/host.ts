/**
 * Test harness over the REAL DeepSeek Harness host packages.
 *
 * Boots a cordis root context with the real `SessionStore`, a concrete
 * `SessionQueryEngine` (full-text search disabled, every read real), optional
 * JSONL persistence, and the real invariant companions, then offers helpers
 * that write realistic session logs through `Session.append`, a minimal
 * `Agent` over a live session, an `agent/pre-step` dispatcher, and a loader
 * for the official `@deepseek-ai/dsh-session-reference` plugin, which is used
 * only as a black-box oracle.
 *
 * Only the agent loop (`dsh-agent-loop`, not installed) is replaced: the
 * agent is a hand-built object whose session, inbox, scope and registry entry
 * are real.
 */
import { randomUUID } from 'node:crypto';
import { Context } from '@deepseek-ai/cordis';
import type { Fiber } from '@deepseek-ai/cordis';
import InvariantRegistry from '@deepseek-ai/dsh-invariants';
import * as AgentInvariant from '@deepseek-ai/dsh-agent/invariant';
import * as CompactionInvariant from '@deepseek-ai/dsh-compaction/invariant';
import * as ScopeInvariant from '@deepseek-ai/dsh-scope/invariant';
import * as SessionInvariant from '@deepseek-ai/dsh-session/invariant';
import * as SessionTitleInvariant from '@deepseek-ai/dsh-session-title/invariant';
import * as SessionReferenceInvariant from '@deepseek-ai/dsh-session-reference/invariant';
import { SessionStore, SessionId } from '@deepseek-ai/dsh-session';
import type { Session, SessionEvent } from '@deepseek-ai/dsh-session';
import { SessionQueryEngine, SessionQueryError } from '@deepseek-ai/dsh-session-query';
import type {
  Config as SessionQueryConfig,
  SessionEventSearchPage,
  SessionSearchHit,
  SessionSearchPage,
} from '@deepseek-ai/dsh-session-query';
import { JsonlSessionPersistence } from '@deepseek-ai/dsh-session-persistence-jsonl';
import { SqliteSessionQueryEngine, type Config as SqliteSessionQueryConfig } from '@deepseek-ai/dsh-session-query-sqlite';
import type { JsonlCompression } from '@deepseek-ai/dsh-session-persistence-jsonl';
import type { SessionPersistence } from '@deepseek-ai/dsh-session-persistence';
import { AgentRegistry, Inbox, agentEvents, emitAgentEvent } from '@deepseek-ai/dsh-agent';
import type { Agent, AgentOptions, AgentStatus, InboxTarget, PreStepDecision } from '@deepseek-ai/dsh-agent';
import { createScope } from '@deepseek-ai/dsh-scope';
import type { Scope } from '@deepseek-ai/dsh-scope';
import {
  CallId,
  createAssistantMessage,
  createToolResultMessage,
  createUserMessage,
} from '@deepseek-ai/dsh-llm';
import type {
  AssistantMessage,
  ContentBlock,
  MessageSource,
  StreamChunk,
  TokenUsage,
  ToolCallBlock,
  UserMessage,
} from '@deepseek-ai/dsh-llm';
import {
  CompactionId,
  compactCheckpointSource,
  toolPairingBalancedAfter,
  toolPairingBalancedBefore,
} from '@deepseek-ai/dsh-compaction';
import { collectSessionTitleMessages, normalizeSessionTitle } from '@deepseek-ai/dsh-session-title';
import type { SessionTitleSource } from '@deepseek-ai/dsh-session-title';
import { SessionReferenceResolver } from '@deepseek-ai/dsh-session-reference';
import type { Config as SessionReferenceConfig } from '@deepseek-ai/dsh-session-reference';

// ---------------------------------------------------------------------------
// Host
// ---------------------------------------------------------------------------

/** Options for {@link createHost}. */
export interface HostOptions {
  /** Directory for JSONL persistence; omitted keeps every session in memory only. */
  root?: string;
  /** JSONL physical encoding (the backend default is `'zstd'`). A root holds one encoding only. */
  compression?: JsonlCompression;
  /** JSONL live-event coalescing window in ms (backend default 200); `flush()` bypasses it. */
  writeBatchMaxDelayMs?: number;
  /** Mount `ctx.invariants` and the real invariant companions (default `true`). */
  invariants?: boolean;
  /** Configuration forwarded to the session-query engine. */
  sessionQuery?: SessionQueryConfig;
  /**
   * Mount dsh's own full-text backend, `SqliteSessionQueryEngine` with this
   * configuration, as `ctx.sessionQuery` instead of {@link HarnessSessionQuery}
   * (whose search is disabled). `sessionQuery` is merged into it.
   */
  search?: SqliteSessionQueryConfig;
}

/** A booted host: the root context plus typed shortcuts to its services. */
export interface Host {
  /** Root cordis context; plug the plugin under test in here. */
  readonly ctx: Context;
  /** JSONL root, when persistence is mounted. */
  readonly root: string | undefined;
  /** `ctx.sessions`, the real in-memory `SessionStore`. */
  readonly sessions: SessionStore;
  /** `ctx.sessionQuery`, the concrete {@link HarnessSessionQuery}. */
  readonly sessionQuery: SessionQueryEngine;
  /** `ctx.sessionPersistence`, when persistence is mounted. */
  readonly persistence: SessionPersistence | undefined;
  /** Await the `session/flush` durability checkpoint for one live session. */
  flush(session: Session): Promise<boolean>;
  /** Dispose the root fiber: unloads every plugin and drains persistence. Idempotent. */
  dispose(): Promise<void>;
}

/**
 * Concrete `ctx.sessionQuery`. Exact reads, filters, titles and traces are the
 * inherited real implementation; only the two abstract full-text methods are
 * stubbed, with the query package's own `SESSION_QUERY_SEARCH_DISABLED` code.
 */
class HarnessSessionQuery extends SessionQueryEngine {
  override async searchSessions(): Promise<SessionSearchPage<SessionSearchHit>> {
    throw new SessionQueryError('search disabled', 'SESSION_QUERY_SEARCH_DISABLED');
  }

  override async searchEvents(): Promise<SessionEventSearchPage> {
    throw new SessionQueryError('search disabled', 'SESSION_QUERY_SEARCH_DISABLED');
  }
}

/** Invariant companions mounted by default; each injects `invariants`. */
const INVARIANT_COMPANIONS = [
  SessionInvariant,
  SessionTitleInvariant,
  CompactionInvariant,
  AgentInvariant,
  ScopeInvariant,
] as const;

/**
 * Boot a real host.
 *
 * Load order: `InvariantRegistry` + companions, `SessionStore` (`sessions`),
 * `AgentRegistry` (`agents`), optionally `JsonlSessionPersistence`
 * (`sessionPersistence`, injects `sessions`), then {@link HarnessSessionQuery}
 * (`sessionQuery`, injects `sessions`; it follows `sessionPersistence`
 * dynamically, so a persisted-only session is readable as soon as it exists).
 * @param options - persistence root and service switches.
 * @returns the booted host.
 */
export async function createHost(options: HostOptions = {}): Promise<Host> {
  const ctx = new Context();
  let disposed: Promise<void> | undefined;
  const dispose = (): Promise<void> => (disposed ??= ctx.fiber.dispose());
  try {
    if (options.invariants !== false) {
      await ctx.plugin(InvariantRegistry, { enabled: true });
      for (const companion of INVARIANT_COMPANIONS) await ctx.plugin(companion);
    }
    await ctx.plugin(SessionStore);
    await ctx.plugin(AgentRegistry);
    if (options.root !== undefined) {
      await ctx.plugin(JsonlSessionPersistence, {
        root: options.root,
        ...(options.compression === undefined ? {} : { compression: options.compression }),
        ...(options.writeBatchMaxDelayMs === undefined ? {} : { writeBatchMaxDelayMs: options.writeBatchMaxDelayMs }),
      });
    }
    if (options.search === undefined) await ctx.plugin(HarnessSessionQuery, options.sessionQuery ?? {});
    else await ctx.plugin(SqliteSessionQueryEngine, { ...options.sessionQuery, ...options.search });
  } catch (error) {
    await dispose();
    throw error;
  }
  return {
    ctx,
    root: options.root,
    get sessions() {
      return ctx.sessions;
    },
    get sessionQuery() {
      return ctx.sessionQuery;
    },
    get persistence() {
      return ctx.get('sessionPersistence');
    },
    flush: (session) => ctx.sessions.flush(session),
    dispose,
  };
}

// ---------------------------------------------------------------------------
// Session content
// ---------------------------------------------------------------------------

/** Metadata for {@link createSession}. */
export interface CreateSessionOptions {
  /** Session id; omitted mints `session-<uuid>`. */
  id?: string;
  /** Absolute working directory recorded in the header. */
  cwd?: string;
  /** Header creation time (Unix ms). Drives `listSessions()` order (newest first). */
  createdAt?: number;
}

/**
 * Create a live session in the real store. With persistence mounted, the JSONL
 * backend materializes it lazily on the first flushed event.
 * @param host - host owning the store.
 * @param options - id, cwd and creation time.
 * @returns the live session.
 */
export function createSession(host: Host, options: CreateSessionOptions = {}): Session {
  const meta = {
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    ...(options.createdAt === undefined ? {} : { createdAt: options.createdAt }),
  };
  return host.sessions.create(SessionId(options.id ?? `session-${randomUUID()}`), { meta });
}

/** A live session owned by its own plugin fiber, and the disposer that removes it from the store. */
export interface OwnedSession {
  session: Session;
  /** Dispose the owning fiber: the session leaves the live store (a persisted copy stays on disk). */
  dispose(): Promise<void>;
}

/**
 * Like {@link createSession}, but the session belongs to a child fiber instead
 * of the root, so one session can be deleted from the live store mid-test.
 */
export async function createOwnedSession(host: Host, options: CreateSessionOptions = {}): Promise<OwnedSession> {
  let session: Session | undefined;
  const fiber = await host.ctx.plugin({
    name: 'owned-session',
    inject: ['sessions'],
    apply: (ctx: Context) => {
      session = createSession({ ...host, sessions: ctx.sessions }, options);
    },
  });
  if (session === undefined) throw new Error('createOwnedSession: the session was not created');
  return { session, dispose: async () => void (await fiber.dispose()) };
}

/** Text shorthand or exact content blocks. */
export type ContentInput = string | readonly ContentBlock[];

function toBlocks(content: ContentInput): ContentBlock[] {
  return typeof content === 'string' ? [{ type: 'text', text: content }] : [...content];
}

/** Open turn/step position derived from the log (the log is the source of truth). */
interface LogPosition {
  /** Open turn number, if a `turn/start` is not yet closed. */
  openTurn: number | undefined;
  /** Open step number within the open turn. */
  openStep: number | undefined;
  /** Whether the open step already holds its `assistant/message`. */
  stepAnswered: boolean;
  /** Next unused turn number. */
  nextTurn: number;
  /** Next unused step number inside the open turn. */
  nextStep: number;
}

function logPosition(session: Session): LogPosition {
  const events = session.events;
  let openStep: number | undefined;
  let lastStep = 0;
  let stepKnown = false;
  let stepAnswered = false;
  for (let index = events.length - 1; index >= 0; index -= 1) {
    const event = events[index] as SessionEvent;
    switch (event.type) {
      case 'turn/start':
        return {
          openTurn: event.data.turn,
          openStep,
          stepAnswered: openStep !== undefined && stepAnswered,
          nextTurn: event.data.turn + 1,
          nextStep: lastStep + 1,
        };
      case 'turn/end':
        return { openTurn: undefined, openStep: undefined, stepAnswered: false, nextTurn: event.data.turn + 1, nextStep: 1 };
      case 'step/start':
      case 'step/end':
        if (!stepKnown) {
          stepKnown = true;
          lastStep = event.data.step;
          if (event.type === 'step/start') openStep = event.data.step;
        }
        break;
      case 'assistant/message':
        if (!stepKnown) stepAnswered = true;
        break;
      default:
        break;
    }
  }
  return { openTurn: undefined, openStep: undefined, stepAnswered: false, nextTurn: 1, nextStep: 1 };
}

/** Append `turn/start` unless a turn is open; returns the open turn number. */
function ensureTurn(session: Session): number {
  const position = logPosition(session);
  if (position.openTurn !== undefined) return position.openTurn;
  session.append('turn/start', { turn: position.nextTurn });
  return position.nextTurn;
}

/** Close the open step, if any, with `step/end`. */
function endStep(session: Session): void {
  const position = logPosition(session);
  if (position.openTurn !== undefined && position.openStep !== undefined) {
    session.append('step/end', { turn: position.openTurn, step: position.openStep });
  }
}

/** Reason recorded by {@link endTurn}. */
export type TurnEndReason = SessionEvent<'turn/end'>['data']['reason'];

/**
 * Close the open step and turn (no-op when no turn is open).
 * @param session - target session.
 * @param reason - turn-end reason; defaults to `completed`.
 */
export function endTurn(session: Session, reason: TurnEndReason = { kind: 'completed' }): void {
  const position = logPosition(session);
  if (position.openTurn === undefined) return;
  endStep(session);
  session.append('turn/end', { turn: position.openTurn, reason });
}

/** Options for {@link appendUser}. */
export interface AppendUserOptions {
  /** Message source; defaults to a direct human prompt `{ kind: 'user' }`. */
  source?: MessageSource;
}

/**
 * Append a model-visible `user/message` the way the loop records an entered
 * message: inside a turn (opened when needed), between steps.
 * @param session - target session.
 * @param content - text or blocks rendered verbatim.
 * @param options - message source.
 * @returns the logged event.
 */
export function appendUser(
  session: Session,
  content: ContentInput,
  options: AppendUserOptions = {},
): SessionEvent<'user/message'> {
  ensureTurn(session);
  endStep(session);
  const message = createUserMessage({ content: toBlocks(content), source: options.source ?? { kind: 'user' } });
  return session.append('user/message', message, { surfaceOp: 'append' });
}

/** Options for {@link appendInjected}. */
export interface AppendInjectedOptions {
  /** Producing plugin id (default `'test-plugin'`). */
  plugin?: string;
}

/**
 * Append plugin-injected context (`source: { kind: 'plugin', plugin }`), as
 * `agent.inject()` content looks once a pre-step enters it.
 */
export function appendInjected(
  session: Session,
  content: ContentInput,
  options: AppendInjectedOptions = {},
): SessionEvent<'user/message'> {
  return appendUser(session, content, { source: { kind: 'plugin', plugin: options.plugin ?? 'test-plugin' } });
}

/** One tool call requested by an assistant message. */
interface ToolCallInput {
  /** Call id (default `call-<uuid>`). */
  id?: string;
  name: string;
  /** Raw JSON argument string; objects are stringified. */
  arguments?: string | Record<string, unknown>;
}

/** Assistant step content for {@link appendAssistant}. */
export interface AppendAssistantOptions {
  /** Reasoning text, emitted as a leading `reasoning` block. */
  reasoning?: string;
  /** Visible text, emitted as a `text` block. */
  text?: string;
  /** Exact blocks; replaces `reasoning`/`text`/`toolCalls` when given. */
  content?: readonly ContentBlock[];
  /** Tool calls appended after the text; each also logs a `tool/call` event. */
  toolCalls?: readonly ToolCallInput[];
  /** Provenance (defaults `harness` / `harness-model`). */
  provider?: string;
  model?: string;
  usage?: TokenUsage;
  /** Record a cancelled mid-stream prefix (`interrupted: true`). */
  interrupted?: boolean;
  /** Log `assistant/chunk` events and cite them from the message (default `true`, like the loop). */
  stream?: boolean;
}

/** Result of {@link appendAssistant}. */
export interface AppendedAssistant {
  event: SessionEvent<'assistant/message'>;
  message: AssistantMessage;
  /** Call ids of the requested tools, in order. */
  callIds: CallId[];
}

function chunksFor(blocks: readonly ContentBlock[], finish: 'stop' | 'tool-calls'): StreamChunk[] {
  const chunks: StreamChunk[] = [];
  blocks.forEach((block, index) => {
    chunks.push({ type: 'block-start', index, blockType: block.type });
    if (block.type === 'text') chunks.push({ type: 'text-delta', index, text: block.text });
    else if (block.type === 'reasoning') chunks.push({ type: 'reasoning-delta', index, text: block.text });
    else if (block.type === 'tool-call') {
      chunks.push({ type: 'tool-call-delta', index, id: block.id, name: block.name, argumentsDelta: block.arguments });
    }
    chunks.push({ type: 'block-end', index, block });
  });
  chunks.push({ type: 'finish', reason: { kind: finish } });
  return chunks;
}

/**
 * Append one model step: `step/start`, optional `assistant/chunk` stream, the
 * `assistant/message`, and one `tool/call` per requested tool. A previous
 * answered step is closed first; a turn is opened when none is.
 * Pair each call with {@link appendToolResult} before the next step or turn end.
 */
export function appendAssistant(session: Session, options: AppendAssistantOptions): AppendedAssistant {
  const turn = ensureTurn(session);
  let position = logPosition(session);
  if (position.openStep !== undefined && position.stepAnswered) {
    endStep(session);
    position = logPosition(session);
  }
  const step = position.openStep ?? position.nextStep;
  if (position.openStep === undefined) session.append('step/start', { turn, step });

  const toolCalls: ToolCallBlock[] = (options.toolCalls ?? []).map((call) => ({
    type: 'tool-call',
    id: CallId(call.id ?? `call-${randomUUID()}`),
    name: call.name,
    arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {}),
  }));
  const content: ContentBlock[] = options.content !== undefined
    ? [...options.content]
    : [
        ...(options.reasoning === undefined ? [] : [{ type: 'reasoning', text: options.reasoning } as const]),
        ...(options.text === undefined ? [] : [{ type: 'text', text: options.text } as const]),
        ...toolCalls,
      ];
  const callBlocks = content.filter((block): block is ToolCallBlock => block.type === 'tool-call');

  const sourceEventSeqs: number[] = [];
  if (options.stream !== false) {
    for (const chunk of chunksFor(content, callBlocks.length > 0 ? 'tool-calls' : 'stop')) {
      sourceEventSeqs.push(session.append('assistant/chunk', { turn, step, chunk }).seq);
    }
  }
  const message = createAssistantMessage({
    content,
    source: { provider: options.provider ?? 'harness', model: options.model ?? 'harness-model' },
  });
  const event = session.append(
    'assistant/message',
    {
      turn,
      step,
      message,
      ...(options.usage === undefined ? {} : { usage: options.usage }),
      ...(options.interrupted === true ? { interrupted: true as const } : {}),
    },
    { surfaceOp: 'append', ...(options.stream === false ? {} : { sourceEventSeqs }) },
  );
  for (const call of callBlocks) {
    session.append('tool/call', { turn, step, callId: call.id, name: call.name, arguments: call.arguments });
  }
  return { event, message, callIds: callBlocks.map((call) => call.id) };
}

/** Options for {@link appendToolResult}. */
export interface AppendToolResultOptions {
  isError?: boolean;
}

/** Append the `tool/result` for one call of the open step. */
export function appendToolResult(
  session: Session,
  callId: CallId | string,
  content: ContentInput,
  options: AppendToolResultOptions = {},
): SessionEvent<'tool/result'> {
  const position = logPosition(session);
  if (position.openTurn === undefined || position.openStep === undefined) {
    throw new Error('appendToolResult: no open step; call appendAssistant with toolCalls first');
  }
  const isError = options.isError === true;
  const message = createToolResultMessage({ callId: CallId(callId), content: toBlocks(content), isError });
  return session.append(
    'tool/result',
    {
      turn: position.openTurn,
      step: position.openStep,
      message,
      ...(isError ? { error: { name: 'Error', code: 'TOOL_ERROR' } } : {}),
    },
    { surfaceOp: 'append' },
  );
}

/** One completed human/assistant exchange for {@link appendExchange}. */
export interface ExchangeInput {
  user: ContentInput;
  assistant: string | AppendAssistantOptions;
}

/** Append a direct prompt, one assistant step and close the turn. */
export function appendExchange(session: Session, exchange: ExchangeInput): void {
  appendUser(session, exchange.user);
  appendAssistant(session, typeof exchange.assistant === 'string' ? { text: exchange.assistant } : exchange.assistant);
  endTurn(session);
}

/** Byte cap used when normalizing titles (matches typical `maxTitleBytes`). */
const TITLE_MAX_BYTES = 256;

/**
 * Record a title the way `dsh-session-title` does: a log-only `session/title`
 * event `{ title, messageSeqs, source }`. A `user` rename cites no message;
 * a `fallback` cites the first eligible human message; a `provider` title
 * cites every eligible human message (the title invariant requires ≥ 1).
 * @param session - target session.
 * @param title - raw title, normalized like the service does.
 * @param source - title owner; defaults to an explicit user rename.
 * @returns the logged event.
 */
export function setTitle(
  session: Session,
  title: string,
  source: SessionTitleSource = { kind: 'user' },
): SessionEvent<'session/title'> {
  const eligible = collectSessionTitleMessages(session.events).map((message) => message.seq);
  const messageSeqs = source.kind === 'user' ? [] : source.kind === 'fallback' ? eligible.slice(0, 1) : eligible;
  if (source.kind !== 'user' && messageSeqs.length === 0) {
    throw new Error('setTitle: an automatic title needs an earlier direct user message to cite');
  }
  const normalized = normalizeSessionTitle(title, TITLE_MAX_BYTES);
  if (normalized.length === 0) throw new Error('setTitle: title normalizes to empty');
  return session.append('session/title', { title: normalized, messageSeqs, source });
}

/** Options for {@link compact}. */
export interface CompactOptions {
  /** Trailing current surface nodes kept verbatim (default 0: everything before the checkpoint). */
  retain?: number;
  /** Transaction id (default random UUID). */
  compactionId?: string;
  /**
   * Wrap the summary in the block shape `dsh-compaction-basic` uses (default `true`):
   * `[preamble + "\n\n<compacted-summary>", summary, "</compacted-summary>"]`.
   * `false` stores the summary as a single text block.
   */
  framed?: boolean;
}

/** Result of {@link compact}. */
export interface CompactResult {
  compactionId: string;
  startSeq: number;
  summarySeq: number;
  checkpoint: SessionEvent<'user/message'>;
  endSeq: number;
  shadowedSeqs: number[];
}

/**
 * Checkpoint framing in the shape `dsh-compaction-basic` writes (a preamble
 * block ending with the opening tag, the summary, the closing tag); the
 * preamble wording here is the harness's own.
 */
const CHECKPOINT_PREAMBLE =
  'Harness checkpoint: the span of conversation before this point was condensed into the summary below. Treat it as established background.';
const SUMMARY_OPEN_TAG = '<compacted-summary>';
const SUMMARY_CLOSE_TAG = '</compacted-summary>';

/** Heuristic token price (UTF-8 bytes / 4) used for `shadowedTokenCount`. */
function heuristicTokens(events: readonly SessionEvent[]): number {
  const bytes = events.reduce((total, event) => total + Buffer.byteLength(JSON.stringify(event.data)), 0);
  return Math.ceil(bytes / 4);
}

/**
 * Compact the current surface the way a real `CompactionEngine` backend
 * commits a summary: `compaction/start` (the lock), `compaction/summary`
 * (log-only record), ONE replacement `user/message` whose source is
 * `compactCheckpointSource(compactionId)` with
 * `surfaceOp: { op: 'replace', start, end }` and
 * `sourceEventSeqs: [startSeq, summarySeq, ...shadowedSeqs]`, then
 * `compaction/end`. Between turns the bracket is a standalone manual one
 * (`turn: null`); inside an open turn it is owned by that turn.
 * The span starts at the first current node and ends before the retained
 * tail, moved earlier until no tool call/result pair is split.
 * @param session - session to compact; must have no open step.
 * @param summary - summary text written by the (template) summarizer.
 * @param options - retained tail, id and framing.
 * @returns the appended seqs and the checkpoint event.
 */
export function compact(session: Session, summary: string, options: CompactOptions = {}): CompactResult {
  const position = logPosition(session);
  if (position.openStep !== undefined) throw new Error('compact: close the open step first');
  const nodes = session.surface.nodes;
  let keepFrom = nodes.length - (options.retain ?? 0);
  while (keepFrom > 0 && keepFrom < nodes.length && !toolPairingBalancedBefore(session, nodes[keepFrom] as number)) {
    keepFrom -= 1;
  }
  if (keepFrom <= 0) throw new Error('compact: no compactable surface span');
  const shadowedSeqs = nodes.slice(0, keepFrom);
  const start = shadowedSeqs[0] as number;
  const end = shadowedSeqs[shadowedSeqs.length - 1] as number;
  if (!toolPairingBalancedBefore(session, start) || !toolPairingBalancedAfter(session, end)) {
    throw new Error('compact: span would split a tool call/result pair');
  }

  const compactionId = CompactionId(options.compactionId ?? randomUUID());
  const lifecycle = { compactionId, turn: position.openTurn ?? null };
  const summaryBlocks: ContentBlock[] = [{ type: 'text', text: summary }];
  const events = session.events;
  const startEvent = session.append('compaction/start', lifecycle);
  const summaryEvent = session.append('compaction/summary', {
    compactionId,
    summary: summaryBlocks,
    shadowedRange: { start, end },
    shadowedSeqs: [...shadowedSeqs],
    shadowedTokenCount: heuristicTokens(shadowedSeqs.map((seq) => events[seq] as SessionEvent)),
    provider: 'harness',
    model: 'harness-summarizer',
  });
  const content: ContentBlock[] = options.framed === false
    ? summaryBlocks
    : [
        { type: 'text', text: `${CHECKPOINT_PREAMBLE}\n\n${SUMMARY_OPEN_TAG}` },
        ...summaryBlocks,
        { type: 'text', text: SUMMARY_CLOSE_TAG },
      ];
  const checkpoint = session.append(
    'user/message',
    createUserMessage({ content, source: compactCheckpointSource(compactionId) }),
    { surfaceOp: { op: 'replace', start, end }, sourceEventSeqs: [startEvent.seq, summaryEvent.seq, ...shadowedSeqs] },
  );
  const endEvent = session.append('compaction/end', lifecycle);
  return {
    compactionId,
    startSeq: startEvent.seq,
    summarySeq: summaryEvent.seq,
    checkpoint,
    endSeq: endEvent.seq,
    shadowedSeqs: [...shadowedSeqs],
  };
}

// ---------------------------------------------------------------------------
// Agent and pre-step
// ---------------------------------------------------------------------------

/**
 * Minimal live {@link Agent}: `id === session.id`, a real `Inbox` projection,
 * a real `dsh-scope` context keyed by the agent (with `ctx.agent` set, as the
 * loop does), and a real `ctx.agents` registry entry. There is no driver:
 * `send`/`followup`/`steer`/`inject` only queue into the inbox, and
 * `cancel`/`whenIdle`/`runMaintenance` are inert.
 */
export class HarnessAgent implements Agent {
  readonly id: SessionId;
  readonly options: AgentOptions;
  readonly session: Session;
  readonly inbox: Inbox;
  readonly status: AgentStatus = 'idle';
  readonly ctx: Context;
  readonly scope: Scope;

  constructor(host: Host, session: Session, options: AgentOptions = {}) {
    this.id = session.id;
    this.session = session;
    this.options = options;
    this.scope = createScope(host.ctx, this);
    this.ctx = this.scope.ctx;
    Object.defineProperty(this.ctx, 'agent', { value: this, configurable: true });
    this.inbox = new Inbox(session, {
      inserted: (message) => emitAgentEvent(host.ctx, this, 'agent/inbox/inserted', { message }),
      discarded: (message) => emitAgentEvent(host.ctx, this, 'agent/inbox/discarded', { message }),
      claimed: (message, turn) => emitAgentEvent(host.ctx, this, 'agent/inbox/claimed', { message, turn }),
    });
  }

  cancel(): void {}

  async whenIdle(): Promise<void> {}

  async runMaintenance<T>(task: (signal: AbortSignal) => Promise<T>): Promise<T> {
    return task(new AbortController().signal);
  }

  send(message: UserMessage, target: InboxTarget, _wakeup: boolean): void {
    this.inbox.append(target, message);
  }

  followup(message: UserMessage): void {
    this.send(message, 'next-turn', true);
  }

  steer(message: UserMessage): void {
    this.send(message, 'next-step', true);
  }

  inject(message: UserMessage): void {
    this.send(message, 'next-step', false);
  }
}

/**
 * Build a {@link HarnessAgent} over a live session and register it in
 * `ctx.agents` (emitting `agent/created`). It is unregistered when the host
 * is disposed, or earlier through the returned agent's `scope.dispose()`.
 */
export function makeAgent(host: Host, session: Session, options: AgentOptions = {}): HarnessAgent {
  const agent = new HarnessAgent(host, session, options);
  host.ctx.agents.register(agent);
  return agent;
}

/** Build a direct human prompt (`source: { kind: 'user' }`). */
export function userPrompt(content: ContentInput): UserMessage {
  return createUserMessage({ content: toBlocks(content), source: { kind: 'user' } });
}

/** Options for {@link runPreStep}. */
export interface RunPreStepOptions {
  signal?: AbortSignal;
  /** Proposed turn (default: the open turn, else the next turn number). */
  turn?: number;
  /** Proposed step (default 1). */
  step?: number;
  /**
   * Mount a temporary downstream listener that rejects the step
   * (`{ kind: 'reject' }` without calling `next()`), like a policy plugin.
   */
  reject?: boolean;
  /**
   * Record the step as the loop would: open the turn before dispatch, append
   * every entered message as a `user/message` after `enter`, and close the turn
   * (`blocked` on reject, `error`/`aborted` on failure) otherwise.
   */
  record?: boolean;
}

/**
 * Dispatch the real `agent/pre-step` waterfall through `agentEvents()` (the
 * agent's scope carrier as `this`). The innermost `next` is the loop default
 * `{ kind: 'enter', messages: payload.messages }`.
 * @param host - host whose listeners run.
 * @param agent - subject agent.
 * @param messages - claimed batch proposed for the step.
 * @param options - signal, coordinates, rejection and recording switches.
 * @returns the outermost decision.
 */
export async function runPreStep(
  host: Host,
  agent: Agent,
  messages: readonly UserMessage[],
  options: RunPreStepOptions = {},
): Promise<PreStepDecision> {
  const position = logPosition(agent.session);
  const turn = options.turn ?? position.openTurn ?? position.nextTurn;
  if (options.record === true) {
    ensureTurn(agent.session);
    endStep(agent.session);
  }
  const signal = options.signal ?? new AbortController().signal;
  const payload = { messages: [...messages], turn, step: options.step ?? 1, signal };
  const removeRejecter = options.reject === true
    ? host.ctx.on('agent/pre-step', async () => ({ kind: 'reject' as const }))
    : undefined;
  let decision: PreStepDecision;
  try {
    decision = await agentEvents(host.ctx, agent).waterfall(
      'agent/pre-step',
      payload,
      async () => ({ kind: 'enter', messages: payload.messages }),
    );
  } catch (error) {
    if (options.record === true) {
      endTurn(agent.session, signal.aborted
        ? { kind: 'aborted', reason: { kind: 'user' } }
        : { kind: 'error', error: { message: errorMessage(error), code: errorCode(error) } });
    }
    throw error;
  } finally {
    removeRejecter?.();
  }
  if (options.record === true) {
    if (decision.kind === 'enter') {
      for (const message of decision.messages) agent.session.append('user/message', message, { surfaceOp: 'append' });
    } else {
      endTurn(agent.session, { kind: 'blocked' });
    }
  }
  return decision;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : 'UNKNOWN';
}

// ---------------------------------------------------------------------------
// Oracle
// ---------------------------------------------------------------------------

/** The official resolver mounted by {@link loadOracle}. */
export interface Oracle {
  /** `ctx.sessionReferenceResolver` of the official package. */
  readonly resolver: SessionReferenceResolver;
  /** The resolver's plugin fiber. */
  readonly fiber: Fiber;
  /** Unload the resolver (and its pre-step listener) plus its invariant companion. */
  dispose(): Promise<void>;
}

/**
 * Plug the official `@deepseek-ai/dsh-session-reference` into a host. It
 * injects only `sessionQuery`; its invariant companion (an empty installer)
 * is mounted too when `ctx.invariants` exists. Config is validated by the
 * plugin's schemastery `Config`; invalid values reject here with
 * `SESSION_REFERENCE_INVALID_CONFIG`. Only one `sessionReferenceResolver`
 * can live in a context, so differential tests use one host per implementation.
 * @param host - host to extend.
 * @param config - `maxReferences`, `candidateLimit`, `maxReferenceBytes`.
 * @returns the mounted oracle.
 */
export async function loadOracle(host: Host, config: SessionReferenceConfig = {}): Promise<Oracle> {
  const companion = host.ctx.get('invariants') === undefined
    ? undefined
    : await host.ctx.plugin(SessionReferenceInvariant);
  const dispose = async (): Promise<void> => {
    await fiber?.dispose();
    await companion?.dispose();
  };
  let fiber: Fiber | undefined;
  try {
    fiber = await host.ctx.plugin(SessionReferenceResolver, config);
  } catch (error) {
    await dispose();
    throw error;
  }
  const resolver = host.ctx.get('sessionReferenceResolver');
  if (resolver === undefined) {
    await dispose();
    throw new Error('loadOracle: sessionReferenceResolver did not start');
  }
  return { resolver, fiber, dispose };
}
