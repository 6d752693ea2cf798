/** Rendering of the sessions list, the target's conversation and the model preview. */
import type { DisplayMessage, MessagesResponse, PreviewResponse, ReferenceView, SessionItem } from '../../src/server/protocol.js';
import { h } from './dom.js';
import { formatAge, formatBytes, plural, shortId } from './format.js';

export interface SessionActions {
  select(id: string): void;
  /** Copy a session's canonical mention, to paste into dsh. */
  copy(session: SessionItem): void;
}

export function renderSessions(list: HTMLElement, sessions: readonly SessionItem[], target: string | undefined, actions: SessionActions): void {
  if (sessions.length === 0) {
    list.replaceChildren(h('li', { class: 'empty-note' }, 'No sessions in this root yet: create one with New session.'));
    return;
  }
  // In the server's order: newest first, the unreadable last.
  list.replaceChildren(...sessions.map((session) => sessionRow(session, session.sessionId === target, actions)));
}

function sessionRow(session: SessionItem, active: boolean, actions: SessionActions): HTMLElement {
  // A session whose log cannot be read is listed with its code; the full reason is its tooltip.
  const unreadable = session.readError ? h('span', { class: 'badge unreadable', title: session.readError.message }, `unreadable: ${session.readError.code}`) : null;
  const inUse = session.inUse ? h('span', { class: 'badge in-use', title: inUseExplanation(session.inUse) }, 'in use') : null;
  const title = session.title ?? session.sessionId;
  const button = h(
    'button',
    {
      type: 'button',
      class: `session${active ? ' active' : ''}${session.readError ? ' damaged' : ''}`,
      'aria-current': active ? 'true' : undefined,
      'data-session-id': session.sessionId,
      title: session.readError?.message,
    },
    h('span', { class: 'session-title' }, title),
    h('span', { class: 'session-cwd', title: session.cwd ?? '' }, session.cwd ?? '(no cwd)'),
    h('span', { class: 'session-age' }, session.createdAt === undefined ? 'unknown age' : formatAge(session.createdAt), inUse, unreadable),
  );
  button.addEventListener('click', () => actions.select(session.sessionId));
  return h('li', { class: 'session-item' }, button, session.mention === undefined ? null : copyButton(`Copy the mention of ${title}`, () => actions.copy(session)));
}

/** The in-use badge's tooltip: who holds the session, and what that means for Send. */
function inUseExplanation(holder: NonNullable<SessionItem['inUse']>): string {
  const who = `${holder.command ?? 'Another program'} (pid ${holder.pid})`;
  const how = holder.how === 'locked' ? 'holds this session\'s lock' : 'has this session\'s log open for writing';
  return `${who} ${how} right now, as dsh does while it runs the session. Send is refused until it lets go; Preview still works.`;
}

/** A small button that copies a canonical mention; its name says what it copies. */
function copyButton(label: string, copy: () => void): HTMLElement {
  const button = h('button', { type: 'button', class: 'icon-button copy-button', 'aria-label': label, title: `${label} (to paste into dsh)` });
  button.addEventListener('click', (event) => {
    event.stopPropagation();
    copy();
  });
  return button;
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
  const { messages } = conversation;
  // As dsh Web's replay: a message sent with references names them under its text; the snapshot after it is a recall row.
  section.replaceChildren(...messages.map((message, index) => messageView(message, referencedBy(messages[index + 1]))));
  section.scrollTop = section.scrollHeight;
}

/** The labels of the snapshot right after a message, which that message's mentions produced. */
function referencedBy(next: DisplayMessage | undefined): string[] {
  return next?.kind === 'context' ? (next.references ?? []).map((reference) => reference.label) : [];
}

const KIND_LABEL: Record<DisplayMessage['kind'], string> = {
  user: 'You',
  assistant: 'Assistant',
  context: 'Session recall',
  checkpoint: 'Compaction checkpoint',
  injected: 'Context injection',
};

function messageView(message: DisplayMessage, labels: readonly string[]): HTMLElement {
  if (message.kind === 'context') return recallRow(message);
  const head = h('div', { class: 'message-head' }, h('span', { class: 'message-role' }, KIND_LABEL[message.kind]), h('span', { class: 'message-seq' }, `#${message.seq}`));
  if (message.kind === 'user' || message.kind === 'assistant') {
    const summary = labels.length > 0 ? h('div', { class: 'reference-summary' }, `Referenced session · ${labels.join(', ')}`) : null;
    return h('article', { class: `message ${message.kind}`, 'data-seq': message.seq }, head, h('div', { class: 'message-text' }, ...withMentions(message.text, labels)), summary);
  }
  return h(
    'article',
    { class: `message ${message.kind}`, 'data-seq': message.seq },
    h('details', {}, h('summary', {}, head, h('div', { class: 'message-peek' }, firstLine(message.text))), h('pre', { class: 'message-pre', tabindex: 0 }, message.display ?? message.text)),
  );
}

/**
 * A snapshot as dsh Web replays it: one collapsed row naming the recalled
 * sessions; opened, how much of each was kept, then the text the model saw.
 */
function recallRow(message: DisplayMessage): HTMLElement {
  const references = message.references ?? [];
  const labels = references.flatMap((reference, index) => [index > 0 ? ', ' : '', h('span', { class: 'ref-pill', title: reference.sessionId }, reference.label)]);
  const summary = h(
    'summary',
    { class: 'recall-summary' },
    h('span', { class: 'recall-icon', 'aria-hidden': 'true' }),
    h('span', { class: 'message-role' }, KIND_LABEL.context),
    h('span', { class: 'recall-sep', 'aria-hidden': 'true' }, '·'),
    h('span', { class: 'recall-labels' }, ...labels),
    h('span', { class: 'message-seq' }, `#${message.seq}`),
  );
  const counts = references.map((reference) =>
    h(
      'li',
      { class: 'recall' },
      h('span', { class: 'recall-label' }, reference.label),
      h('span', { class: 'recall-counts' }, `${reference.retainedMessages} kept · ${reference.omittedMessages} omitted`),
      reference.truncated ? h('span', { class: 'recall-counts' }, 'truncated') : null,
    ),
  );
  return h(
    'article',
    { class: 'message context', 'data-seq': message.seq },
    h('details', {}, summary, h('ul', { class: 'recalls' }, ...counts), h('pre', { class: 'message-pre', tabindex: 0 }, message.display ?? message.text)),
  );
}

/** `text` with each `@label` of a referenced session shown as a reference, longest labels first. */
function withMentions(text: string, labels: readonly string[]): (string | HTMLElement)[] {
  const mentions = [...new Set(labels)].sort((a, b) => b.length - a.length).map((label) => `@${label}`);
  const parts: (string | HTMLElement)[] = [];
  let from = 0;
  for (let at = 0; at < text.length; ) {
    const mention = mentions.find((candidate) => text.startsWith(candidate, at));
    if (mention === undefined) {
      at++;
      continue;
    }
    if (at > from) parts.push(text.slice(from, at));
    parts.push(h('span', { class: 'sent-ref' }, h('span', { class: 'chip-at' }, '@'), mention.slice(1)));
    at += mention.length;
    from = at;
  }
  if (from < text.length) parts.push(text.slice(from));
  return parts;
}

function firstLine(text: string): string {
  const line = text.split('\n', 1)[0] ?? '';
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}

export interface PreviewState {
  preview: PreviewResponse;
  /** Set once the message was appended to the target. */
  appendedSeqs?: number[];
  /** The target's title (or id) when it was appended, for the notice. */
  targetTitle?: string;
  /** The draft changed since this preview was made. */
  stale: boolean;
}

export function renderPreview(panel: HTMLElement, state: PreviewState | undefined, close: () => void): void {
  panel.hidden = state === undefined;
  if (!state) return panel.replaceChildren();
  const { preview } = state;
  const closeButton = h('button', { type: 'button', class: 'icon-button', title: 'Close preview (Esc)', 'aria-label': 'Close preview' }, '×');
  closeButton.addEventListener('click', close);
  panel.classList.toggle('stale', state.stale);
  const sent = state.appendedSeqs !== undefined;
  panel.replaceChildren(
    h('header', { class: 'preview-head' }, h('div', {}, h('h2', {}, sent ? 'Appended to the target' : 'What the model sees'), previewSubtitle(state)), closeButton),
    h(
      'div',
      // Scrollable regions take focus, so a keyboard can scroll them.
      { class: 'preview-body', tabindex: 0 },
      sent ? h('p', { class: 'sent-note' }, sentNotice(state)) : null,
      referencesSection(preview),
      ...preview.messages.map((message, index) => modelMessage(message, index)),
    ),
  );
}

/** What Send did, plainly: two messages on the log, and no model call. */
export function sentNotice(state: PreviewState): string {
  const count = state.appendedSeqs?.length ?? 0;
  const what = count === 2 ? 'Both messages were' : `${plural(count, 'message')} ${count === 1 ? 'was' : 'were'}`;
  return `${what} appended to “${state.targetTitle ?? state.preview.target}”. No model runs here: the next dsh turn on this session will see them.`;
}

function previewSubtitle(state: PreviewState): HTMLElement {
  const { preview } = state;
  const parts = [plural(preview.messages.length, 'user message'), plural(preview.references.length, 'reference')];
  if (state.appendedSeqs && state.appendedSeqs.length > 0) parts.push(`seq ${state.appendedSeqs.join(', ')}`);
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
    h('pre', { class: 'model-text', tabindex: 0 }, message.display),
  );
}
