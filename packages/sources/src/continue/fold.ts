import type { SurfaceMessage } from '@sessref/core';
import { SourceReadError } from '../errors.js';
import { asObject, asString, parseJson } from '../json-lines.js';
import { contentTexts, oneLine, surfaceMessage, transcriptOf } from '../surface.js';
import type { Transcript } from '../transcripts/format.js';

type JsonRecord = Readonly<Record<string, unknown>>;

/** The title a session has until one is generated (`DEFAULT_SESSION_TITLE`, `extensions/cli/src/constants/session.ts`): headless runs keep it. */
const PLACEHOLDER_TITLE = 'Untitled Session';

/**
 * One Continue session file folded (this package's README, "Continue"):
 * the JSON document `cn` rewrites on every save, its `history` from the
 * compaction summary on (all of it without one), each item classified. A
 * document without a `history` list is not a session; `createdAt` is what
 * the walk found beside the file, as the file records no time.
 */
export function foldContinue(text: string, where: string, createdAt: number | undefined): Transcript {
  const session = asObject(parseJson(text, where));
  const history = session?.['history'];
  if (session === undefined || !Array.isArray(history)) throw new SourceReadError('SOURCE_SESSION_UNSUPPORTED', `${where} holds no history list: not a Continue session`);
  if (createdAt === undefined) throw new SourceReadError('SOURCE_SESSION_UNSUPPORTED', `${where} has no start time: no sessions.json entry and no file time`);
  const items = history.map((item: unknown) => asObject(item) ?? {});
  return transcriptOf({
    createdAt,
    cwd: asString(session['workspaceDirectory']),
    title: ownTitle(session) ?? firstPrompt(items),
    messages: currentItems(items).flatMap(surfaceOf),
    throughRecord: items.length === 0 ? null : items.length - 1,
  });
}

/**
 * What the model is sent: the history from the first item holding a
 * `conversationSummary` on (`findCompactionIndex` and `getHistoryForLLM`,
 * `extensions/cli/src/compaction.ts`), the whole history without one. The
 * TUI's `/compact` saves the compacted history, so the summary is then the
 * file's first item; a headless `/compact` saves nothing and changes nothing.
 */
function currentItems(items: readonly JsonRecord[]): readonly JsonRecord[] {
  const at = items.findIndex((item) => item['conversationSummary'] !== undefined);
  return at < 0 ? items : items.slice(at);
}

/**
 * One history item on the surface. The summary item (an assistant message
 * with `conversationSummary`) is the checkpoint. A `user` message is what
 * the user typed (`editorState` holds the same text; attached context is in
 * `contextItems`, never carried); an `assistant` message carries its text,
 * never its `toolCalls` or the `toolCallStates` outputs beside them; a
 * `tool` message is a tool result; `system` items (never saved by `cn`) and
 * anything else are Continue's; `thinking` items are reasoning, dropped.
 */
function surfaceOf(item: JsonRecord): SurfaceMessage[] {
  const message = asObject(item['message']) ?? {};
  // A string, or `text` parts (an `imageUrl` part is none).
  const texts = contentTexts(message['content']);
  const summary = item['conversationSummary'];
  if (summary !== undefined) return [surfaceMessage('user', 'compact-checkpoint', typeof summary === 'string' ? [summary] : texts)];
  const role = message['role'];
  if (role === 'user' && texts.length > 0) return [surfaceMessage('user', 'direct-user', texts)];
  if (role === 'assistant') return texts.length > 0 ? [surfaceMessage('assistant', 'other', texts)] : [];
  if (role === 'tool') return [surfaceMessage('tool', 'other', [])];
  return role === 'thinking' ? [] : [surfaceMessage('user', 'other', texts)];
}

/** The session's `title`, unless blank or the placeholder a session has before one is generated. */
function ownTitle(session: JsonRecord): string | undefined {
  const title = oneLine(asString(session['title']) ?? '');
  return title === '' || title === PLACEHOLDER_TITLE ? undefined : title;
}

/** The fallback title: the first user message of the saved history, on one line, as `cn`'s session list previews it (`getSessionMetadataWithPreview`). */
function firstPrompt(items: readonly JsonRecord[]): string | undefined {
  for (const item of items) {
    const message = asObject(item['message']);
    if (message?.['role'] === 'user' && item['conversationSummary'] === undefined) return oneLine(contentTexts(message['content']).join(' ')) || undefined;
  }
  return undefined;
}
