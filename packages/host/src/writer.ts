/**
 * The one session writer: the dsh event sequences the agent loop,
 * dsh-session-title and a plugin's injection record, written through the real
 * `Session.append`. `sessref seed`, the benchmarks' corpora and the test
 * suites all write through it. Turn and step numbers come from the log
 * itself, so a writer can continue any session, including one loaded from disk.
 */
import { randomUUID } from 'node:crypto';
import { CallId, createAssistantMessage, createToolResultMessage, createUserMessage } from '@deepseek-ai/dsh-llm';
import type { AssistantMessage, ContentBlock, MessageSource, StreamChunk, TokenUsage, ToolCallBlock, UserMessage } from '@deepseek-ai/dsh-llm';
import { SessionId, type Session, type SessionEvent, type SessionStore } from '@deepseek-ai/dsh-session';
import { collectSessionTitleMessages, normalizeSessionTitle, type SessionTitleSource } from '@deepseek-ai/dsh-session-title';

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
 * @param host - anything holding the store: a cordis context or a test host.
 * @param options - id, cwd and creation time.
 * @returns the live session.
 */
export function createSession(host: { readonly sessions: SessionStore }, options: CreateSessionOptions = {}): Session {
  const meta = {
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    ...(options.createdAt === undefined ? {} : { createdAt: options.createdAt }),
  };
  return host.sessions.create(SessionId(options.id ?? `session-${randomUUID()}`), { meta });
}

/** Text shorthand or exact content blocks. */
export type ContentInput = string | readonly ContentBlock[];

function toBlocks(content: ContentInput): ContentBlock[] {
  return typeof content === 'string' ? [{ type: 'text', text: content }] : [...content];
}

/** A direct human prompt (`source: { kind: 'user' }`), as the loop claims it from the inbox. */
export function userPrompt(content: ContentInput): UserMessage {
  return createUserMessage({ content: toBlocks(content), source: { kind: 'user' } });
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

/**
 * Each session's position as of its last known event count. `Session.events`
 * copies the whole log after every append, so deriving the position afresh
 * for each write would make writing a long session quadratic (`sessref seed`
 * writes 2,000 exchanges, the benchmarks 50,000); the writer advances the
 * position itself instead, and derives it again only when the log grew
 * through someone else's append.
 */
const positions = new WeakMap<Session, { seq: number; position: LogPosition }>();

export function logPosition(session: Session): LogPosition {
  const known = positions.get(session);
  if (known?.seq === session.seq) return known.position;
  const position = scanPosition(session.events);
  positions.set(session, { seq: session.seq, position });
  return position;
}

/** Note one event this writer appended, keeping the remembered position current. */
function track<E extends SessionEvent>(session: Session, event: E): E {
  const known = positions.get(session);
  if (known?.seq === event.seq) positions.set(session, { seq: event.seq + 1, position: advance(known.position, event) });
  return event;
}

function advance(position: LogPosition, event: SessionEvent): LogPosition {
  switch (event.type) {
    case 'turn/start':
      return { openTurn: event.data.turn, openStep: undefined, stepAnswered: false, nextTurn: event.data.turn + 1, nextStep: 1 };
    case 'turn/end':
      return { openTurn: undefined, openStep: undefined, stepAnswered: false, nextTurn: event.data.turn + 1, nextStep: 1 };
    case 'step/start':
      return { ...position, openStep: event.data.step, stepAnswered: false, nextStep: event.data.step + 1 };
    case 'step/end':
      return { ...position, openStep: undefined, stepAnswered: false, nextStep: event.data.step + 1 };
    case 'assistant/message':
      return { ...position, stepAnswered: position.openStep !== undefined };
    default:
      return position;
  }
}

function scanPosition(events: readonly SessionEvent[]): LogPosition {
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

/** The turn the next step belongs to: the open turn, else the number the next `turn/start` takes. */
export function currentTurn(session: Session): number {
  const position = logPosition(session);
  return position.openTurn ?? position.nextTurn;
}

/**
 * Bring the log to where the loop appends the messages a step enters: inside
 * a turn (opened when none is), between steps (the open step closed).
 * @returns the open turn number.
 */
export function betweenSteps(session: Session): number {
  const position = logPosition(session);
  if (position.openTurn === undefined) {
    track(session, session.append('turn/start', { turn: position.nextTurn }));
    return position.nextTurn;
  }
  if (position.openStep !== undefined) track(session, session.append('step/end', { turn: position.openTurn, step: position.openStep }));
  return position.openTurn;
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
  if (position.openStep !== undefined) track(session, session.append('step/end', { turn: position.openTurn, step: position.openStep }));
  track(session, session.append('turn/end', { turn: position.openTurn, reason }));
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
export function appendUser(session: Session, content: ContentInput, options: AppendUserOptions = {}): SessionEvent<'user/message'> {
  betweenSteps(session);
  const message = createUserMessage({ content: toBlocks(content), source: options.source ?? { kind: 'user' } });
  return track(session, session.append('user/message', message, { surfaceOp: 'append' }));
}

/**
 * Append the messages a step entered exactly as they are (the readable
 * message and any context the pre-step built), the way the loop records
 * them: inside a turn (opened when none is), between steps, each a surface
 * append. @returns their seqs.
 */
export function appendEnteredMessages(session: Session, messages: readonly UserMessage[]): number[] {
  betweenSteps(session);
  return messages.map((message) => track(session, session.append('user/message', message, { surfaceOp: 'append' })).seq);
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
export function appendInjected(session: Session, content: ContentInput, options: AppendInjectedOptions = {}): SessionEvent<'user/message'> {
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

/**
 * Who answered and how the answer was logged. The writers differ only here:
 * the suites keep the defaults (a streamed `harness` model, as the loop logs
 * it), `sessref seed` writes a `deepseek` model without chunks, the benchmark
 * corpora a `bench` model without chunks (their cached logs depend on it).
 */
export interface AssistantStyle {
  /** Provenance (defaults `harness` / `harness-model`). */
  provider?: string;
  model?: string;
  /** Log `assistant/chunk` events and cite them from the message (default `true`, like the loop). */
  stream?: boolean;
}

/** Assistant step content for {@link appendAssistant}. */
export interface AppendAssistantOptions extends AssistantStyle {
  /** Reasoning text, emitted as a leading `reasoning` block. */
  reasoning?: string;
  /** Visible text, emitted as a `text` block. */
  text?: string;
  /** Exact blocks; replaces `reasoning`/`text`/`toolCalls` when given. */
  content?: readonly ContentBlock[];
  /** Tool calls appended after the text; each also logs a `tool/call` event. */
  toolCalls?: readonly ToolCallInput[];
  usage?: TokenUsage;
  /** Record a cancelled mid-stream prefix (`interrupted: true`). */
  interrupted?: boolean;
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
  let position = logPosition(session);
  if (position.openTurn === undefined || (position.openStep !== undefined && position.stepAnswered)) {
    betweenSteps(session);
    position = logPosition(session);
  }
  const turn = position.openTurn as number;
  const step = position.openStep ?? position.nextStep;
  if (position.openStep === undefined) track(session, session.append('step/start', { turn, step }));

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
      sourceEventSeqs.push(track(session, session.append('assistant/chunk', { turn, step, chunk })).seq);
    }
  }
  const message = createAssistantMessage({
    content,
    source: { provider: options.provider ?? 'harness', model: options.model ?? 'harness-model' },
  });
  const event = track(session, session.append(
    'assistant/message',
    {
      turn,
      step,
      message,
      ...(options.usage === undefined ? {} : { usage: options.usage }),
      ...(options.interrupted === true ? { interrupted: true as const } : {}),
    },
    { surfaceOp: 'append', ...(options.stream === false ? {} : { sourceEventSeqs }) },
  ));
  for (const call of callBlocks) {
    track(session, session.append('tool/call', { turn, step, callId: call.id, name: call.name, arguments: call.arguments }));
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
  return track(session, session.append(
    'tool/result',
    {
      turn: position.openTurn,
      step: position.openStep,
      message,
      ...(isError ? { error: { name: 'Error', code: 'TOOL_ERROR' } } : {}),
    },
    { surfaceOp: 'append' },
  ));
}

/** A tool the model called, in a step of its own, before it answered. */
export interface ToolUse {
  name: string;
  arguments: Record<string, unknown>;
  result: string;
  /** The reasoning that led to the call, in the calling step. */
  reasoning?: string;
}

/** One completed human/assistant exchange for {@link appendExchange}. */
export interface Exchange {
  user: ContentInput;
  assistant: string | AppendAssistantOptions;
  tool?: ToolUse;
}

/**
 * Append a direct prompt, an optional tool step (call and result), the
 * answering step, and close the turn.
 * @param style - provenance and streaming of every assistant message written.
 */
export function appendExchange(session: Session, exchange: Exchange, style: AssistantStyle = {}): void {
  appendUser(session, exchange.user);
  const { tool } = exchange;
  if (tool !== undefined) {
    const { callIds } = appendAssistant(session, {
      ...style,
      ...(tool.reasoning === undefined ? {} : { reasoning: tool.reasoning }),
      toolCalls: [{ name: tool.name, arguments: tool.arguments }],
    });
    appendToolResult(session, callIds[0] as CallId, tool.result);
  }
  appendAssistant(session, { ...style, ...(typeof exchange.assistant === 'string' ? { text: exchange.assistant } : exchange.assistant) });
  endTurn(session);
}

/** Byte cap used when normalizing titles (matches typical `maxTitleBytes`). */
const TITLE_MAX_BYTES = 256;

/** Options for {@link setTitle}. */
export interface SetTitleOptions {
  /** Title owner; defaults to an explicit user rename. */
  source?: SessionTitleSource;
  /**
   * Log the title as given instead of normalizing it like dsh-session-title
   * (default `false`): a log another writer produced, whose title may hold
   * what the service would have cleaned (control characters, long text).
   */
  verbatim?: boolean;
}

/**
 * Record a title the way `dsh-session-title` does: a log-only `session/title`
 * event `{ title, messageSeqs, source }`. A `user` rename cites no message;
 * a `fallback` cites the first eligible human message; a `provider` title
 * cites every eligible human message (the title invariant requires ≥ 1).
 * @param session - target session.
 * @param title - raw title, normalized like the service does unless `verbatim`.
 * @param options - title owner and normalization.
 * @returns the logged event.
 */
export function setTitle(session: Session, title: string, options: SetTitleOptions = {}): SessionEvent<'session/title'> {
  const source = options.source ?? { kind: 'user' };
  // A user rename cites nothing, so only an automatic title reads the log.
  const eligible = source.kind === 'user' ? [] : collectSessionTitleMessages(session.events).map((message) => message.seq);
  const messageSeqs = source.kind === 'fallback' ? eligible.slice(0, 1) : eligible;
  if (source.kind !== 'user' && messageSeqs.length === 0) {
    throw new Error('setTitle: an automatic title needs an earlier direct user message to cite');
  }
  const logged = options.verbatim === true ? title : normalizeSessionTitle(title, TITLE_MAX_BYTES);
  if (logged.length === 0) throw new Error('setTitle: title normalizes to empty');
  return track(session, session.append('session/title', { title: logged, messageSeqs, source }));
}
