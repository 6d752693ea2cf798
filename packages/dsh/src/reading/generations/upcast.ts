/**
 * v2-v4 events to the v0 shapes dsh 0.1.0-rc.8 restores, keeping what a
 * snapshot carries (direct user text, assistant text, compaction checkpoints,
 * titles) and the turn structure around it. Every other event becomes an
 * ignorable placeholder at its own seq: rc.8 needs seqs contiguous from 0
 * (`Session.fromRestore`) and admits a type it does not know only with
 * `ignorable: true` (its persistence coordinator), so the log keeps the
 * file's numbering, which is what a captured seq means together with the
 * generation (dsh-generations.md, "Seqs").
 *
 * What changed across generations, and what is done about it:
 * - v2 embeds the assistant stream in `assistant/message.data.stream`: dropped
 *   (rc.8 needs only the assembled message); failed attempts are their own
 *   `assistant/attempt` event: a placeholder.
 * - v3 moves the system prompt into `system/message` surface events: a
 *   placeholder, never a message a snapshot carries.
 * - v4 gives tool results role `tool` with direct content: rewrapped into
 *   rc.8's user-role single `tool-result` block; it renames message sources,
 *   of which the compaction checkpoint (`compact-checkpoint`) and the
 *   `plugin:<name>` fallback are mapped back; other renamed kinds stay (rc.8
 *   accepts any kind, and only `user` and the checkpoint matter to a snapshot).
 */
import type { SessionEvent, SessionEventType, UserMessage } from '@deepseek-ai/dsh-session';
import type { AssistantMessage, MessageSource, TokenUsage, ToolResultMessage } from '@deepseek-ai/dsh-llm';
import { CallId, MessageId } from '@deepseek-ai/dsh-llm';
import { corrupt } from './errors.js';
import type { RawEvent } from './envelope.js';
import { isNonEmptyString, isRecord, type JsonRecord } from './json.js';

export type UpcastGeneration = 2 | 3 | 4;

type Upcaster = (raw: RawEvent, generation: UpcastGeneration) => SessionEvent;

/** Events whose payload is the same in v0 and v2-v4, as far as rc.8 reads them. */
const UNCHANGED: readonly SessionEventType[] = ['turn/start', 'turn/end', 'step/start', 'step/end', 'tool/call', 'session/title'];

const UPCASTERS = new Map<string, Upcaster>([
  ...UNCHANGED.map((type): [string, Upcaster] => [type, unchanged]),
  ['user/message', (raw, generation) => ({ ...at(raw), type: 'user/message', data: userMessage(raw, generation) })],
  ['assistant/message', (raw) => ({ ...at(raw), type: 'assistant/message', data: assistantMessage(raw) })],
  ['tool/result', (raw) => ({ ...at(raw), type: 'tool/result', data: toolResult(raw) })],
  // v2+ tag the inherited cut's marker `{inherited: true}`; rc.8's marker is empty.
  ['session/end-seed', (raw) => ({ ...at(raw), type: 'session/end-seed', data: {} })],
]);

/** `raw` as the rc.8 event of the same seq, without surface metadata (see surface.ts). */
export function upcastEvent(raw: RawEvent, generation: UpcastGeneration): SessionEvent {
  const upcaster = UPCASTERS.get(raw.type);
  if (upcaster === undefined) return { ...at(raw), type: 'sessref/omitted', data: { type: raw.type }, ignorable: true };
  return upcaster(raw, generation);
}

function at(raw: RawEvent): { seq: number; time: number } {
  return { seq: raw.seq, time: raw.time };
}

/** rc.8 reads these payloads without checking them, as it does in its own logs. */
function unchanged(raw: RawEvent): SessionEvent {
  return { ...at(raw), type: raw.type, data: raw.data } as SessionEvent;
}

function userMessage(raw: RawEvent, generation: UpcastGeneration): UserMessage {
  const message = messageOf(raw.data, raw, 'user');
  return { id: message.id, role: 'user', content: message.content, source: generation === 4 ? v0Source(message.source) : message.source };
}

/**
 * A v4 source in v0's words: the checkpoint is `{kind:'plugin', plugin:'compact'}`
 * again, and `plugin:<name>` (an unknown v3 plugin) is that plugin again.
 */
function v0Source(source: MessageSource): MessageSource {
  const { kind, ...rest } = source as JsonRecord & { kind: string };
  if (kind === 'compact-checkpoint') return { ...rest, kind: 'plugin', plugin: 'compact' };
  if (kind.startsWith('plugin:')) return { ...rest, kind: 'plugin', plugin: kind.slice('plugin:'.length) };
  return source;
}

function assistantMessage(raw: RawEvent): SessionEvent<'assistant/message'>['data'] {
  const data = dataOf(raw);
  const message = messageOf(data['message'], raw, 'assistant');
  const usage = usageOf(data['usage']);
  return {
    turn: data['turn'] as number,
    step: data['step'] as number,
    message: message as AssistantMessage,
    ...(usage === undefined ? {} : { usage }),
    ...(data['interrupted'] === true ? { interrupted: true } : {}),
  };
}

/** rc.8's usage fields; v4's `totalTokens` has no place in them. */
function usageOf(value: unknown): TokenUsage | undefined {
  if (!isRecord(value)) return undefined;
  const keys = ['inputTokens', 'outputTokens', 'cacheReadTokens', 'cacheWriteTokens', 'reasoningTokens'] as const;
  return Object.fromEntries(keys.filter((key) => typeof value[key] === 'number').map((key) => [key, value[key]])) as unknown as TokenUsage;
}

function toolResult(raw: RawEvent): SessionEvent<'tool/result'>['data'] {
  const { message, ...rest } = dataOf(raw);
  const result = isRecord(message) && message['role'] === 'tool' ? v0ToolResult(message, raw) : message;
  return { ...rest, message: result } as SessionEvent<'tool/result'>['data'];
}

/** v4's `{role:'tool', toolCallId, content, isError?}` as rc.8's user message around one `tool-result` block. */
function v0ToolResult(message: JsonRecord, raw: RawEvent): ToolResultMessage {
  const { id, toolCallId, content, isError, source } = message;
  if (!isNonEmptyString(id) || !isNonEmptyString(toolCallId) || !Array.isArray(content) || !isRecord(source) || source['callId'] !== toolCallId) {
    throw malformed(raw, 'a tool result without an id, call id or content');
  }
  const block = { type: 'tool-result' as const, toolCallId: CallId(toolCallId), content, ...(typeof isError === 'boolean' ? { isError } : {}) };
  return { id: MessageId(id), role: 'user', content: [block], source: { kind: 'tool', callId: CallId(toolCallId) } };
}

/** The message fields rc.8 keeps, checked as rc.8's restore checks them. */
function messageOf(value: unknown, raw: RawEvent, role: 'user' | 'assistant'): UserMessage | AssistantMessage {
  if (!isRecord(value)) throw malformed(raw, 'no message');
  const { id, content, source } = value;
  if (!isNonEmptyString(id) || value['role'] !== role || !Array.isArray(content) || !isRecord(source) || !isNonEmptyString(source['kind'])) {
    throw malformed(raw, `a message that is not an identified ${role} message`);
  }
  return { id: MessageId(id), role, content, source: source as unknown as MessageSource } as UserMessage | AssistantMessage;
}

function dataOf(raw: RawEvent): JsonRecord {
  if (!isRecord(raw.data)) throw malformed(raw, 'data that is not an object');
  return raw.data;
}

function malformed(raw: RawEvent, what: string): Error {
  return corrupt(`event ${raw.seq} (${raw.type}) has ${what}`);
}
