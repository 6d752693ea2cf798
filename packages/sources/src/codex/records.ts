import { asObject, asString } from '../json-lines.js';
import { cwdIn, isInjectedContext, isLoneTag, summaryIn } from './fragments.js';

/** One item of the model's history, as far as the current conversation needs it. */
export type Entry =
  /** What the user typed: a user turn. */
  | { kind: 'user'; texts: string[] }
  /** A compaction's summary; Codex counts it as a user turn too. */
  | { kind: 'checkpoint'; text: string }
  | { kind: 'assistant'; texts: string[] }
  /** Another agent's instruction: a user turn for rollback that carries nothing. */
  | { kind: 'instruction' };

/**
 * One rollout line, reduced to what Codex's reducer reads
 * (codex-rs/core/src/session/rollout_reconstruction.rs) plus the session's
 * facts. Lines that matter to neither are dropped while reading, so millions
 * of bookkeeping lines cost no memory.
 */
export type Step =
  | { kind: 'meta'; timestamps: string[]; cwd?: string }
  | { kind: 'cwd'; cwd: string }
  | { kind: 'title'; title: string }
  | { kind: 'item'; entry: Entry }
  | { kind: 'compacted'; replacement?: Entry[]; summary: string }
  | { kind: 'rollback'; turns: number }
  | { kind: 'turn-started' | 'turn-ended' | 'turn-aborted' | 'turn-context'; turnId?: string }
  /** A `user_message` event: the turn holding it is a user turn. */
  | { kind: 'user-turn' };

/** A record's step, or `undefined` when nothing reads it. `first` says whether it is the file's first record (where legacy headers are). */
export function stepOf(record: unknown, first: boolean): Step | undefined {
  const object = asObject(record);
  if (object === undefined) return undefined;
  const type = asString(object['type']);
  const payload = asObject(object['payload']);
  if (type !== undefined && payload !== undefined) return envelopeStep(type, payload, asString(object['timestamp']));
  // Before the envelope (2025), line 1 was a bare `{id, timestamp, instructions}` and items stood alone.
  if (first && type === undefined && asString(object['id']) !== undefined) return metaStep(object, undefined);
  return itemStep(object);
}

function envelopeStep(type: string, payload: Record<string, unknown>, timestamp: string | undefined): Step | undefined {
  switch (type) {
    case 'session_meta':
      return metaStep(payload, timestamp);
    case 'response_item':
      return itemStep(payload);
    case 'compacted':
      return compactedStep(payload);
    case 'event_msg':
      return eventStep(payload);
    case 'turn_context':
      return turnStep('turn-context', payload['turn_id']);
    case 'inter_agent_communication':
      return { kind: 'item', entry: { kind: 'instruction' } };
    default:
      // Codex skips record types it does not know; so does this reader.
      return undefined;
  }
}

function metaStep(meta: Record<string, unknown>, envelopeTimestamp: string | undefined): Step {
  const timestamps = [asString(meta['timestamp']), envelopeTimestamp].filter((value) => value !== undefined);
  const cwd = asString(meta['cwd']);
  return cwd === undefined ? { kind: 'meta', timestamps } : { kind: 'meta', timestamps, cwd };
}

function compactedStep(payload: Record<string, unknown>): Step {
  const message = asString(payload['message']) ?? '';
  const summary = summaryIn(message) ?? message;
  const history = payload['replacement_history'];
  if (!Array.isArray(history)) return { kind: 'compacted', summary };
  const replacement = history.flatMap((item) => {
    const step = itemStep(item);
    return step?.kind === 'item' ? [step.entry] : [];
  });
  return { kind: 'compacted', replacement, summary };
}

function eventStep(payload: Record<string, unknown>): Step | undefined {
  switch (payload['type']) {
    case 'thread_rolled_back':
      return { kind: 'rollback', turns: turnCount(payload['num_turns']) };
    case 'task_started':
    case 'turn_started':
      return turnStep('turn-started', payload['turn_id'] ?? asObject(payload['turn_attribution'])?.['turn_id']);
    case 'task_complete':
    case 'turn_complete':
      return turnStep('turn-ended', payload['turn_id']);
    case 'turn_aborted':
      return turnStep('turn-aborted', payload['turn_id']);
    case 'user_message':
      return { kind: 'user-turn' };
    case 'thread_name_updated':
      return titleStep(payload['thread_name']);
    default:
      return undefined;
  }
}

function turnStep(kind: 'turn-started' | 'turn-ended' | 'turn-aborted' | 'turn-context', turnId: unknown): Step {
  const id = asString(turnId);
  return id === undefined ? { kind } : { kind, turnId: id };
}

function titleStep(name: unknown): Step | undefined {
  const title = asString(name)?.trim();
  return title === undefined || title === '' ? undefined : { kind: 'title', title };
}

/** A rollback's turn count: a non-negative whole number, anything else none. */
function turnCount(value: unknown): number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : 0;
}

/** A model-history item: only messages carry text; tool calls, their output and reasoning never do. */
function itemStep(item: unknown): Step | undefined {
  const object = asObject(item);
  if (object === undefined || object['type'] !== 'message' || !Array.isArray(object['content'])) return undefined;
  const texts = object['content'].flatMap((part) => {
    const text = asString(asObject(part)?.['text']);
    return text === undefined ? [] : [text];
  });
  switch (object['role']) {
    case 'user':
      return userStep(texts);
    case 'assistant':
      return { kind: 'item', entry: { kind: 'assistant', texts } };
    default:
      // Developer and system messages are Codex's instructions to its model.
      return undefined;
  }
}

/**
 * A user-role message: injected context when any of its texts is (as Codex
 * decides), the compaction hand-off when it opens with Codex's fixed line,
 * else what the user typed, without the markup around images.
 */
function userStep(texts: string[]): Step | undefined {
  if (texts.some(isInjectedContext)) {
    const cwd = texts.map(cwdIn).find((value) => value !== undefined);
    return cwd === undefined ? undefined : { kind: 'cwd', cwd };
  }
  const summary = summaryIn(texts.join('\n'));
  if (summary !== undefined) return { kind: 'item', entry: { kind: 'checkpoint', text: summary } };
  return { kind: 'item', entry: { kind: 'user', texts: texts.filter((text) => !isLoneTag(text)) } };
}
