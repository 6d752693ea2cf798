/**
 * Display models for the inspector: what a step would hand the model, and a
 * target's current conversation. Pure functions over engine results.
 */
import type { MessageSource } from '@deepseek-ai/dsh-llm';
import type { SurfaceEvent } from '@deepseek-ai/dsh-session';
import type { MessageOrigin } from '@sessref/core';
import { messageText, prettyReferencedSessionsPrompt, renderReferenceExcerpts, renderReferencedSessionsDisplay } from '@sessref/core/internal';
import { toSurfaceMessage } from '@sessref/dsh';
import { stepSources, type Engine, type SessionView, type StepMessage, type StepPreview } from '../engine/engine.js';
import type { DisplayKind, DisplayMessage, MessagesResponse, ModelMessage, PreviewResponse, ReferenceMeta, ReferenceView } from './protocol.js';

function referencesOf(source: MessageSource): ReferenceMeta[] {
  return source.kind === 'session-reference' ? source.references.map((reference) => ({ ...reference })) : [];
}

/**
 * A step's message; a context message is displayed from the data the plugin
 * prepared, never from its text: the snapshots pretty-printed, then the
 * excerpts notice the model reads after them, when any source is one.
 */
function modelMessage({ message, prepared }: StepMessage): ModelMessage {
  const text = messageText(message.content);
  if (message.source.kind !== 'session-reference') return { kind: 'readable', text, display: text };
  const display =
    prepared === undefined
      ? prettyReferencedSessionsPrompt(text)
      : renderReferencedSessionsDisplay(prepared.sources.map((source) => source.data)) + renderReferenceExcerpts(prepared.sources.map((source) => source.entry));
  return { kind: 'context', text, display };
}

export function previewView(preview: StepPreview): PreviewResponse {
  const references = stepSources(preview).map(({ entry, bytes }): ReferenceView => ({ ...entry, bytes }));
  return { target: preview.target, maxReferenceBytes: preview.maxReferenceBytes, messages: preview.messages.map(modelMessage), references };
}

/** How the pane shows a user-role message: the origin the core reads it with, and logged snapshots apart. */
const USER_KINDS: Record<MessageOrigin, DisplayKind> = { 'direct-user': 'user', 'compact-checkpoint': 'checkpoint', other: 'injected' };

/** One surface event as the conversation pane shows it; tool results and empty messages are left out. */
function displayMessage(event: SurfaceEvent): DisplayMessage | undefined {
  const surface = toSurfaceMessage(event);
  const text = messageText(surface.content);
  if (text === '') return undefined;
  if (event.type === 'assistant/message') return { seq: event.seq, role: 'assistant', kind: 'assistant', text };
  if (event.type !== 'user/message') return undefined;
  const message = event.data;
  const kind = message.source.kind === 'session-reference' ? 'context' : USER_KINDS[surface.origin];
  // A logged context exists only as its text: the core's prompt module lays it out for display.
  const context = kind === 'context' ? { display: prettyReferencedSessionsPrompt(text), references: referencesOf(message.source) } : {};
  return { seq: event.seq, role: 'user', kind, text, ...context };
}

/**
 * A session's current surface as display messages, with its header and
 * latest title. Another agent's session has no dsh surface: it is shown as
 * its snapshot's whole projected conversation, what a reference to it
 * carries before the budget (each message numbered by its position).
 */
export async function conversationView(engine: Engine, sessionId: string): Promise<MessagesResponse> {
  if (engine.agentOf(sessionId) !== undefined) return snapshotView(sessionId, await engine.show(sessionId));
  const { surface, title } = await engine.conversation(sessionId);
  const cwd = surface.session.cwd;
  return {
    sessionId,
    ...(title === undefined ? {} : { title }),
    ...(cwd === undefined ? {} : { cwd }),
    capturedThroughSeq: surface.capturedThroughSeq,
    messages: surface.events.flatMap((event) => displayMessage(event) ?? []),
  };
}

function snapshotView(sessionId: string, view: SessionView): MessagesResponse {
  const { cwd } = view.header;
  return {
    sessionId,
    ...(view.title === undefined ? {} : { title: view.title }),
    ...(cwd === undefined ? {} : { cwd }),
    capturedThroughSeq: view.capturedThroughSeq,
    messages: view.items.map(({ role, text, checkpoint }, seq): DisplayMessage => ({ seq, role, kind: checkpoint ? 'checkpoint' : role, text })),
  };
}
