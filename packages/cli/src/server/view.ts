/**
 * Display models for the inspector: what a step would hand the model, and a
 * target's current conversation. Pure functions over engine results.
 */
import { isCompactCheckpointSource } from '@deepseek-ai/dsh-compaction';
import type { ContentBlock, MessageSource, UserMessage } from '@deepseek-ai/dsh-llm';
import { SessionId, type SurfaceEvent } from '@deepseek-ai/dsh-session';
import type {} from '@deepseek-ai/dsh-session-query';
import type {} from '@sessref/dsh';
import { REFERENCED_SESSIONS_CLOSE_TAG, REFERENCED_SESSIONS_OPEN_TAG } from '@sessref/core';
import type { Engine, StepPreview } from '../engine/engine.js';
import type { DisplayKind, DisplayMessage, MessagesResponse, ModelMessage, PreviewResponse, ReferenceMeta, ReferenceView } from './protocol.js';

/** A message's projected text: its text blocks joined with newlines. */
export function textOf(content: readonly ContentBlock[]): string {
  return content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n');
}

interface SnapshotSplit {
  before: string;
  json: string;
  after: string;
}

/** Cut a context message around the JSON array between the snapshot tags. */
export function splitSnapshot(text: string): SnapshotSplit | undefined {
  const openLine = `\n${REFERENCED_SESSIONS_OPEN_TAG}\n`;
  const open = text.indexOf(openLine);
  const close = text.lastIndexOf(`\n${REFERENCED_SESSIONS_CLOSE_TAG}`);
  if (open < 0 || close < open + openLine.length) return undefined;
  const start = open + openLine.length;
  return { before: text.slice(0, start), json: text.slice(start, close), after: text.slice(close) };
}

function parseJson(json: string): unknown {
  try {
    return JSON.parse(json);
  } catch {
    return undefined;
  }
}

/** The context text with its JSON pretty-printed, still tag-safe; unchanged when it holds no parsable snapshot. */
export function prettySnapshot(text: string): string {
  const split = splitSnapshot(text);
  const parsed = split && parseJson(split.json);
  if (!split || parsed === undefined) return text;
  return `${split.before}${JSON.stringify(parsed, null, 2).replaceAll('<', '\\u003c')}${split.after}`;
}

function isContext(message: UserMessage): boolean {
  return message.source.kind === 'session-reference';
}

function referencesOf(source: MessageSource): ReferenceMeta[] {
  return source.kind === 'session-reference' ? source.references.map((reference) => ({ ...reference })) : [];
}

export function previewView(preview: StepPreview): PreviewResponse {
  const messages = preview.messages.map((message): ModelMessage => {
    const text = textOf(message.content);
    return isContext(message) ? { kind: 'context', text, display: prettySnapshot(text) } : { kind: 'readable', text, display: text };
  });
  const references = preview.references.map((reference, index): ReferenceView => ({ ...reference, bytes: preview.sourceBytes[index] ?? 0 }));
  return { target: preview.target, maxReferenceBytes: preview.maxReferenceBytes, messages, references };
}

function userKind(source: MessageSource): DisplayKind {
  if (source.kind === 'user') return 'user';
  if (source.kind === 'session-reference') return 'context';
  return isCompactCheckpointSource(source) ? 'checkpoint' : 'injected';
}

/** One surface event as the conversation pane shows it; tool results and empty messages are left out. */
export function displayMessage(event: SurfaceEvent): DisplayMessage | undefined {
  if (event.type === 'tool/result') return undefined;
  if (event.type === 'assistant/message') {
    const text = textOf(event.data.message.content);
    return text === '' ? undefined : { seq: event.seq, role: 'assistant', kind: 'assistant', text };
  }
  const message = event.data;
  const text = textOf(message.content);
  if (text === '') return undefined;
  const kind = userKind(message.source);
  const context = kind === 'context' ? { display: prettySnapshot(text), references: referencesOf(message.source) } : {};
  return { seq: event.seq, role: 'user', kind, text, ...context };
}

/** A session's current surface as display messages, with its header and latest title. */
export async function conversationView(engine: Engine, sessionId: string): Promise<MessagesResponse> {
  const id = SessionId(sessionId);
  const query = engine.ctx.sessionQuery;
  const [surface, titled] = await Promise.all([query.readSurface(id), query.readTitleSnapshot(id)]);
  const title = titled.title?.title;
  const cwd = surface.session.cwd;
  return {
    sessionId,
    ...(title === undefined ? {} : { title }),
    ...(cwd === undefined ? {} : { cwd }),
    capturedThroughSeq: surface.capturedThroughSeq,
    messages: surface.events.flatMap((event) => displayMessage(event) ?? []),
  };
}
