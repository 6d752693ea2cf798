/** Rendering of the sessions list, the target's conversation and the model preview. */
import type { DisplayMessage, MessagesResponse, PreviewResponse, ReferenceMeta, ReferenceView, SessionItem } from '../../src/server/protocol.js';
import { h } from './dom.js';
import { formatAge, formatBytes, plural, shortId } from './format.js';

export function renderSessions(list: HTMLElement, sessions: readonly SessionItem[], target: string | undefined, select: (id: string) => void): void {
  if (sessions.length === 0) {
    list.replaceChildren(h('li', { class: 'empty-note' }, 'No sessions yet. Run `sessref seed` to write demo sessions.'));
    return;
  }
  const newest = [...sessions].sort((a, b) => (b.createdAt ?? -Infinity) - (a.createdAt ?? -Infinity));
  list.replaceChildren(...newest.map((session) => sessionRow(session, session.sessionId === target, select)));
}

function sessionRow(session: SessionItem, active: boolean, select: (id: string) => void): HTMLElement {
  // A session whose log cannot be read is listed with its code; the full reason is its tooltip.
  const unreadable = session.readError ? h('span', { class: 'badge unreadable', title: session.readError.message }, `unreadable: ${session.readError.code}`) : null;
  const button = h(
    'button',
    {
      type: 'button',
      class: `session${active ? ' active' : ''}${session.readError ? ' damaged' : ''}`,
      'aria-current': active ? 'true' : undefined,
      'data-session-id': session.sessionId,
      title: session.readError?.message,
    },
    h('span', { class: 'session-title' }, session.title ?? session.sessionId),
    h('span', { class: 'session-cwd', title: session.cwd ?? '' }, session.cwd ?? 'no cwd'),
    h(
      'span',
      { class: 'session-age' },
      session.createdAt === undefined ? 'unknown age' : formatAge(session.createdAt),
      session.live ? h('span', { class: 'badge live' }, 'live') : null,
      unreadable,
    ),
  );
  button.addEventListener('click', () => select(session.sessionId));
  return h('li', {}, button);
}

export function renderTargetHead(head: HTMLElement, conversation: MessagesResponse | undefined): void {
  if (!conversation) {
    head.replaceChildren(h('div', { class: 'target-title' }, 'No target'), h('div', { class: 'target-meta' }, 'Pick a session on the left to write into it.'));
    return;
  }
  const seq = conversation.capturedThroughSeq === null ? 'empty log' : `through seq ${conversation.capturedThroughSeq}`;
  head.replaceChildren(
    h('div', { class: 'target-label' }, 'Target'),
    h('div', { class: 'target-title' }, conversation.title ?? conversation.sessionId),
    h(
      'div',
      { class: 'target-meta' },
      h('code', { title: conversation.sessionId }, shortId(conversation.sessionId)),
      h('span', {}, conversation.cwd ?? 'no cwd'),
      h('span', {}, `${plural(conversation.messages.length, 'message')} · ${seq}`),
    ),
  );
}

export function renderConversation(section: HTMLElement, conversation: MessagesResponse | undefined): void {
  if (!conversation) {
    section.replaceChildren(h('div', { class: 'empty-state' }, h('div', { class: 'empty-icon' }, '@'), h('p', {}, 'Choose a target session to see its conversation.')));
    return;
  }
  if (conversation.messages.length === 0) {
    section.replaceChildren(h('div', { class: 'empty-state' }, h('p', {}, 'This session has no messages yet. Write the first one below.')));
    return;
  }
  section.replaceChildren(...conversation.messages.map(messageView));
  section.scrollTop = section.scrollHeight;
}

const KIND_LABEL: Record<DisplayMessage['kind'], string> = {
  user: 'You',
  assistant: 'Assistant',
  context: 'Referenced sessions',
  checkpoint: 'Compaction checkpoint',
  injected: 'Injected context',
};

function messageView(message: DisplayMessage): HTMLElement {
  const head = h('div', { class: 'message-head' }, h('span', { class: 'message-role' }, KIND_LABEL[message.kind]), h('span', { class: 'message-seq' }, `#${message.seq}`));
  if (message.kind === 'user' || message.kind === 'assistant') {
    return h('article', { class: `message ${message.kind}`, 'data-seq': message.seq }, head, h('div', { class: 'message-text' }, message.text));
  }
  const refs = message.references ?? [];
  const summary = h(
    'summary',
    {},
    head,
    refs.length > 0 ? h('div', { class: 'ref-pills' }, ...refs.map(referencePill)) : h('div', { class: 'message-peek' }, firstLine(message.text)),
  );
  return h(
    'article',
    { class: `message ${message.kind}`, 'data-seq': message.seq },
    h('details', {}, summary, h('pre', { class: 'message-pre' }, message.display ?? message.text)),
  );
}

function referencePill(reference: ReferenceMeta): HTMLElement {
  return h(
    'span',
    { class: 'ref-pill', title: reference.sessionId },
    h('span', { class: 'chip-at' }, '@'),
    reference.label,
    h('span', { class: 'ref-pill-count' }, `${reference.retainedMessages}/${reference.originalMessages}`),
  );
}

function firstLine(text: string): string {
  const line = text.split('\n', 1)[0] ?? '';
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}

export interface PreviewState {
  preview: PreviewResponse;
  /** Set once the message was appended to the target. */
  appendedSeqs?: number[];
  /** The draft changed since this preview was made. */
  stale: boolean;
}

export function renderPreview(panel: HTMLElement, state: PreviewState | undefined, close: () => void): void {
  panel.hidden = state === undefined;
  if (!state) return panel.replaceChildren();
  const { preview } = state;
  const closeButton = h('button', { type: 'button', class: 'icon-button', title: 'Close preview', 'aria-label': 'Close preview' }, '×');
  closeButton.addEventListener('click', close);
  panel.classList.toggle('stale', state.stale);
  panel.replaceChildren(
    h('header', { class: 'preview-head' }, h('div', {}, h('h2', {}, state.appendedSeqs ? 'Sent to the model' : 'What the model sees'), previewSubtitle(state)), closeButton),
    h('div', { class: 'preview-body' }, referencesSection(preview), ...preview.messages.map((message, index) => modelMessage(message, index))),
  );
}

function previewSubtitle(state: PreviewState): HTMLElement {
  const { preview } = state;
  const parts = [plural(preview.messages.length, 'user message'), plural(preview.references.length, 'reference')];
  if (state.appendedSeqs && state.appendedSeqs.length > 0) parts.push(`appended as seq ${state.appendedSeqs.join(', ')}`);
  if (state.stale) parts.push('draft changed since');
  return h('p', { class: 'preview-sub' }, parts.join(' · '));
}

function referencesSection(preview: PreviewResponse): HTMLElement {
  if (preview.references.length === 0) {
    return h('section', { class: 'preview-card muted' }, 'No references: the message goes to the model exactly as typed.');
  }
  const retained = preview.references.reduce((sum, reference) => sum + reference.retainedMessages, 0);
  const omitted = preview.references.reduce((sum, reference) => sum + reference.omittedMessages, 0);
  return h(
    'section',
    { class: 'preview-card' },
    h(
      'div',
      { class: 'card-head' },
      h('h3', {}, 'Snapshots'),
      h('span', { class: 'totals' }, h('span', { class: 'stat retained' }, `${retained} retained`), h('span', { class: 'stat omitted' }, `${omitted} omitted`)),
    ),
    ...preview.references.map((reference) => referenceBar(reference, preview.maxReferenceBytes)),
    h('p', { class: 'budget-note' }, `Each snapshot is bounded by maxReferenceBytes = ${formatBytes(preview.maxReferenceBytes)} (${preview.maxReferenceBytes} B).`),
  );
}

function referenceBar(reference: ReferenceView, max: number): HTMLElement {
  const ratio = max > 0 ? Math.min(1, reference.bytes / max) : 0;
  const fill = h('div', { class: `bar-fill${ratio > 0.9 ? ' high' : ''}` });
  fill.style.width = `${(ratio * 100).toFixed(1)}%`;
  const flags = [reference.truncated ? 'truncated' : null, reference.compacted ? 'compacted' : null].filter((flag): flag is string => flag !== null);
  return h(
    'div',
    { class: 'reference', 'data-session-id': reference.sessionId },
    h('div', { class: 'reference-head' }, h('span', { class: 'reference-label' }, h('span', { class: 'chip-at' }, '@'), reference.label), ...flags.map((flag) => h('span', { class: `badge ${flag}` }, flag))),
    h(
      'div',
      { class: 'bar', role: 'meter', 'aria-valuemin': 0, 'aria-valuemax': max, 'aria-valuenow': reference.bytes, 'aria-label': `${reference.label} snapshot size` },
      fill,
    ),
    h(
      'div',
      { class: 'reference-meta' },
      h('span', { class: 'bytes' }, `${formatBytes(reference.bytes)} of ${formatBytes(max)} · ${Math.round(ratio * 100)}%`),
      h('span', {}, `retained ${reference.retainedMessages}/${reference.originalMessages} · omitted ${reference.omittedMessages}${reference.omittedBytes > 0 ? ` (${formatBytes(reference.omittedBytes)})` : ''}`),
      h('span', {}, reference.capturedThroughSeq === null ? 'empty log' : `captured through seq ${reference.capturedThroughSeq}`),
    ),
  );
}

function modelMessage(message: PreviewResponse['messages'][number], index: number): HTMLElement {
  const title = message.kind === 'readable' ? 'readable message' : 'context · session-reference';
  return h(
    'section',
    { class: `preview-card model-message ${message.kind}` },
    h('div', { class: 'card-head' }, h('h3', {}, `${index + 1} · user`), h('span', { class: 'kind' }, title)),
    h('pre', { class: 'model-text' }, message.display),
  );
}
