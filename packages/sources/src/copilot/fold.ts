import type { SurfaceMessage } from '@sessref/core';
import { SourceReadError } from '../errors.js';
import { asObject, asString, parseJsonLines } from '../json-lines.js';
import { oneLine, surfaceMessage, transcriptOf } from '../surface.js';
import type { Transcript } from '../transcripts/format.js';

type JsonRecord = Readonly<Record<string, unknown>>;

/**
 * One Copilot CLI `events.jsonl` folded (this package's README, "GitHub
 * Copilot CLI"): its events in file order, the latest applied compaction
 * standing for everything before it, and the main agent's messages after it
 * classified. A file that does not start with `session.start` is not a
 * session.
 */
export function foldCopilot(text: string, where: string): Transcript {
  const events = parseJsonLines(text, where).map((event) => asObject(event) ?? {});
  const start = events[0];
  if (start?.['type'] !== 'session.start') throw new SourceReadError('SOURCE_SESSION_UNSUPPORTED', `${where} does not start with session.start: not a Copilot CLI session`);
  const data = asObject(start['data']);
  const createdAt = [data?.['startTime'], start['timestamp']].map((time) => Date.parse(asString(time) ?? '')).find((time) => !Number.isNaN(time));
  if (createdAt === undefined) throw new SourceReadError('SOURCE_SESSION_UNSUPPORTED', `${where} has no start time in its session.start`);
  const cwd = asString(asObject(data?.['context'])?.['cwd']);
  const mainAgent = events.filter(isMainAgentEvent);
  const messages = conversationOf(mainAgent);
  const title = titleOf(mainAgent);
  return transcriptOf({
    createdAt,
    cwd,
    title,
    messages,
    throughRecord: events.length - 1,
  });
}

/**
 * Whether an event is the main agent's own and kept on disk: a sub-agent's
 * carries an `agentId` (on the event or its data) or a `parentToolCallId`
 * (the CLI's test for one, and the schema's "originates from a sub-agent"),
 * and an `ephemeral` event is "not persisted to the session event log".
 */
function isMainAgentEvent(event: JsonRecord): boolean {
  const data = asObject(event['data']);
  const from = (value: unknown): boolean => typeof value === 'string' && value !== '';
  return event['ephemeral'] !== true && !from(event['agentId']) && !from(data?.['agentId']) && typeof data?.['parentToolCallId'] !== 'string';
}

/**
 * The conversation the model continues from. An applied compaction
 * (`session.compaction_complete` with `success: true`, and an `outcome` of
 * `applied` when there is one) replaces everything before it with its
 * `summaryContent`, the checkpoint; `session.context_cleared` (`/clear`)
 * drops everything before it. After them, in file order: user messages,
 * assistant messages and tool results.
 */
function conversationOf(events: readonly JsonRecord[]): SurfaceMessage[] {
  let messages: SurfaceMessage[] = [];
  for (const event of events) {
    const data = asObject(event['data']) ?? {};
    if (event['type'] === 'session.compaction_complete' && data['success'] === true && (data['outcome'] ?? 'applied') === 'applied') {
      messages = [surfaceMessage('user', 'compact-checkpoint', [asString(data['summaryContent'])?.trim() ?? ''])];
    } else if (event['type'] === 'session.context_cleared') {
      messages = [];
    } else {
      messages.push(...surfaceOf(event['type'], data));
    }
  }
  return messages;
}

/**
 * One event on the surface. A `user.message`'s `content` is what the user
 * typed ("as displayed in the timeline"; `transformedContent` is what the
 * model got, with Copilot's own wrapping) unless it has a `source` (a
 * hidden skill injection, another agent's prompt) or is an autopilot
 * continuation: those are text Copilot puts in. An `assistant.message`
 * carries its `content`, never `reasoningText` or its `toolRequests`; a
 * `tool.execution_complete` is a tool message. Everything else
 * (bookkeeping, the system prompt, `model.*` records of a compaction's own
 * call) is not a message.
 */
function surfaceOf(type: unknown, data: JsonRecord): SurfaceMessage[] {
  const content = asString(data['content']) ?? '';
  switch (type) {
    case 'user.message':
      return [surfaceMessage('user', typedByUser(data) ? 'direct-user' : 'other', [content])];
    case 'assistant.message':
      return content.trim() === '' ? [] : [surfaceMessage('assistant', 'other', [content])];
    case 'tool.execution_complete':
      return [surfaceMessage('tool', 'other', [])];
    default:
      return [];
  }
}

/** Whether a `user.message` is the user's own: it names no `source` and is no autopilot continuation, and says something. */
function typedByUser(data: JsonRecord): boolean {
  return (asString(data['source']) ?? '') === '' && data['isAutopilotContinuation'] !== true && (asString(data['content']) ?? '').trim() !== '';
}

/** The fallback title (the workspace's `name` comes first): the first message the user typed in the file, on one line, which is what Copilot names a new session after. */
function titleOf(events: readonly JsonRecord[]): string | undefined {
  const data = events.map((event) => (event['type'] === 'user.message' ? asObject(event['data']) : undefined)).find((found) => found !== undefined && typedByUser(found));
  return data === undefined ? undefined : oneLine(asString(data['content']) ?? '');
}
