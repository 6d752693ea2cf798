import type { SurfaceMessage } from '@sessref/core';
import { SourceReadError } from '../errors.js';
import { asObject, asString, parseJson } from '../json-lines.js';
import { contentBlocks, oneLine, surfaceMessage, transcriptOf } from '../surface.js';
import type { Transcript } from '../transcripts/format.js';
import { projectedMessages } from './compaction.js';
import { displayUserInput, isWrappedUserInput } from './user-input.js';

type JsonRecord = Readonly<Record<string, unknown>>;

/** A Cline session's files, as the source reads them: the manifest, and the texts of its messages and compaction sidecar when present. */
export interface ClineFiles {
  manifest: string;
  messages: string | undefined;
  compaction: string | undefined;
}

/**
 * One Cline session folded (this package's README, "Cline"): the facts from
 * its manifest, the conversation from its messages as the compaction
 * sidecar projects them, each message classified. A manifest without a
 * `session_id` is not a session.
 */
export function foldCline(files: ClineFiles, where: string): Transcript {
  const manifest = asObject(parseJson(files.manifest, where));
  if (typeof manifest?.['session_id'] !== 'string') throw new SourceReadError('SOURCE_SESSION_UNSUPPORTED', `${where} has no session_id: not a Cline session manifest`);
  const createdAt = Date.parse(asString(manifest['started_at']) ?? '');
  if (Number.isNaN(createdAt)) throw new SourceReadError('SOURCE_SESSION_UNSUPPORTED', `${where} has no start time`);
  const source = messagesOf(files.messages, where);
  const messages = fromLastCheckpoint(projectedMessages(source, sidecarOf(files.compaction)).flatMap((message) => surfaceOf(asObject(message) ?? {})));
  const cwd = asString(manifest['cwd']) || asString(manifest['workspace_root']);
  const title = oneLine(asString(asObject(manifest['metadata'])?.['title']) ?? '') || firstPrompt(source);
  return transcriptOf({
    createdAt,
    cwd,
    title,
    messages,
    throughRecord: source.length === 0 ? null : source.length - 1,
    // A sub-agent's session (an inference from the manifest's `is_subagent`): the user sees its parent's.
    ...(manifest['is_subagent'] === true ? { offered: false as const } : {}),
  });
}

/** The transcript's `messages` (`<id>.messages.json`, rewritten whole on every save); none before the first save. */
function messagesOf(text: string | undefined, where: string): readonly unknown[] {
  if (text === undefined) return [];
  const messages = asObject(parseJson(text, `${where}: its messages`))?.['messages'];
  if (!Array.isArray(messages)) throw new SourceReadError('SOURCE_SESSION_CORRUPT', `${where}: its messages file holds no messages list`);
  return messages;
}

/** The compaction sidecar, or none when there is none or it does not parse: Cline then ignores it too. */
function sidecarOf(text: string | undefined): JsonRecord | undefined {
  if (text === undefined) return undefined;
  try {
    return asObject(parseJson(text, 'compaction sidecar'));
  } catch {
    return undefined;
  }
}

/**
 * One message on the surface. A user message's text block wrapped as the
 * user's input (`<user_input mode="…">`, `<user_command>`) is direct user
 * text, as `formatDisplayUserInput` shows it; the compaction summary
 * (`metadata.kind` `compaction_summary`) is the checkpoint, its
 * `metadata.summary`; other user text is Cline's, and `tool_result`
 * blocks are tool results. An assistant message carries its `text` blocks,
 * never `tool_use`, `thinking` or `reasoning` blocks.
 */
function surfaceOf(message: JsonRecord): SurfaceMessage[] {
  const blocks = contentBlocks(message['content']);
  const texts = blocks.flatMap((block) => (block['type'] === 'text' ? (asString(block['text']) ?? []) : []));
  if (message['role'] === 'assistant') return [surfaceMessage('assistant', 'other', texts)];
  const metadata = asObject(message['metadata']);
  if (metadata?.['kind'] === 'compaction_summary') return [surfaceMessage('user', 'compact-checkpoint', [asString(metadata['summary']) ?? texts.join('\n')])];
  if (blocks.some((block) => block['type'] === 'tool_result')) return [surfaceMessage('tool', 'other', [])];
  const typed = texts.filter(isWrappedUserInput).map(displayUserInput).filter((text) => text !== '');
  return [typed.length > 0 ? surfaceMessage('user', 'direct-user', typed) : surfaceMessage('user', 'other', texts)];
}

/** Nothing before the last checkpoint is carried: the summary stands for it. */
function fromLastCheckpoint(messages: readonly SurfaceMessage[]): SurfaceMessage[] {
  const at = messages.findLastIndex((message) => message.origin === 'compact-checkpoint');
  return messages.slice(Math.max(at, 0));
}

/** The fallback title: the first prompt the user typed, on one line. */
function firstPrompt(source: readonly unknown[]): string | undefined {
  for (const message of source) {
    const [surface] = surfaceOf(asObject(message) ?? {});
    if (surface?.origin === 'direct-user') return oneLine(surface.content.map((block) => ('text' in block && typeof block.text === 'string' ? block.text : '')).join(' ')) || undefined;
  }
  return undefined;
}
