/** Rendering of the sessions list, the target's header and the model preview (the conversation is conversation.ts). */
import { labelOf } from '@sessref/core';
import type { MessagesResponse, PreviewResponse, ReferenceView, SessionItem } from '../../src/server/protocol.js';
import { h } from './dom.js';
import { UNTITLED, formatBytes, formatListedAge, plural, quoted, shortId } from './format.js';

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
  moveWithArrows(list);
  // Drawn again when the root changes: the keyboard stays on the session it was on, and so does the tab stop.
  const focused = list.contains(document.activeElement) ? document.activeElement?.closest('.session-item')?.querySelector('.session')?.getAttribute('data-session-id') : null;
  const stop = list.querySelector<HTMLElement>('.session[tabindex="0"]')?.dataset.sessionId;
  // In the server's order: newest first, the unreadable last.
  list.replaceChildren(...sessions.map((session) => sessionRow(session, session.sessionId === target, actions)));
  const rows = [...list.querySelectorAll<HTMLElement>('.session')];
  const current = rows.find((row) => row.dataset.sessionId === (focused ?? stop)) ?? rows.find((row) => row.dataset.sessionId === target) ?? rows[0];
  if (current !== undefined) makeTabStop(list, current);
  if (focused) current?.focus();
}

/**
 * The list is one tab stop, `row` (roving tabindex): every other row and
 * every copy button is reached with the arrows, so Tab passes the list in
 * one step however many sessions it holds.
 */
function makeTabStop(list: HTMLElement, row: HTMLElement): void {
  for (const other of list.querySelectorAll<HTMLElement>('.session')) other.tabIndex = other === row ? 0 : -1;
}

function sessionRow(session: SessionItem, active: boolean, actions: SessionActions): HTMLElement {
  const { readError } = session;
  // A session whose log cannot be read: a short badge, its code on the line below, the full reason the tooltip.
  const unreadable = readError ? unreadableBadge(readError) : null;
  const inUse = session.inUse ? h('span', { class: 'badge in-use', title: inUseExplanation(session.inUse) }, 'in use') : null;
  // Named as `sessref list` names it: the title, else a dimmed (untitled) with the id beside the cwd; an unreadable one by its id.
  const title = labelOf(session.sessionId, session.title);
  const where = session.cwd ?? '(no cwd)';
  const name = session.title ?? (readError ? session.sessionId : undefined);
  const detail = readError ? `${readError.code} · ${where}` : session.title === undefined ? `${session.sessionId} · ${where}` : where;
  const button = h(
    'button',
    {
      type: 'button',
      class: `session${active ? ' active' : ''}${session.readError ? ' damaged' : ''}`,
      'aria-current': active ? 'true' : undefined,
      'data-session-id': session.sessionId,
      title: session.readError?.message,
    },
    // One line with an ellipsis, however long the title; the whole of it is the tooltip.
    h('span', { class: `session-title${name === undefined ? ' untitled' : ''}`, title }, name ?? UNTITLED),
    h('span', { class: 'session-cwd', title: session.cwd ?? '' }, detail),
    // Only a log whose header cannot be read has no age: its badge says why.
    h('span', { class: 'session-age' }, session.createdAt === undefined ? '' : formatListedAge({ createdAt: session.createdAt, lastSentAt: session.lastSentAt }), inUse, unreadable),
  );
  button.addEventListener('click', () => actions.select(session.sessionId));
  return h('li', { class: 'session-item' }, button, session.mention === undefined ? null : copyButton(`Copy the mention of ${title}`, () => actions.copy(session)));
}

/** What marks a session whose log cannot be read, in the list and in the `@` menu: short, its code and reason the tooltip. */
export function unreadableBadge(readError: NonNullable<SessionItem['readError']>): HTMLElement {
  return h('span', { class: 'badge unreadable', title: `${readError.code}: ${readError.message}` }, 'unreadable');
}

const arrowLists = new WeakSet<HTMLElement>();

/**
 * ↑/↓ move the focus through the list's sessions, Home and End to its ends,
 * → to a row's copy button and ← back; Enter or Space picks, as for any
 * button. The row the focus is on is the list's tab stop.
 */
function moveWithArrows(list: HTMLElement): void {
  if (arrowLists.has(list)) return;
  arrowLists.add(list);
  list.addEventListener('focusin', (event) => {
    if (event.target instanceof HTMLElement && event.target.classList.contains('session')) makeTabStop(list, event.target);
  });
  list.addEventListener('keydown', (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey || !(document.activeElement instanceof HTMLElement)) return;
    const target = arrowTarget(list, document.activeElement, event.key);
    if (target === undefined) return;
    event.preventDefault();
    target.focus();
  });
}

/** Where `key` moves the focus from `from` in the list, if anywhere. */
function arrowTarget(list: HTMLElement, from: HTMLElement, key: string): HTMLElement | undefined {
  const item = from.closest('.session-item');
  if (key === 'ArrowRight' && from.classList.contains('session')) return item?.querySelector<HTMLElement>('.copy-button') ?? undefined;
  if (key === 'ArrowLeft' && from.classList.contains('copy-button')) return item?.querySelector<HTMLElement>('.session') ?? undefined;
  const rows = [...list.querySelectorAll<HTMLElement>('.session')];
  const at = rows.indexOf(from);
  const next = { ArrowDown: at + 1, ArrowUp: at - 1, Home: 0, End: rows.length - 1 }[key];
  return next === undefined || at < 0 ? undefined : rows[Math.max(0, Math.min(rows.length - 1, next))];
}

/** The in-use badge's tooltip: who holds the session, and what that means for Send. */
function inUseExplanation(holder: NonNullable<SessionItem['inUse']>): string {
  const who = `${holder.command ?? 'Another program'} (pid ${holder.pid})`;
  const how = holder.how === 'locked' ? 'holds this session\'s lock' : 'has this session\'s log open for writing';
  return `${who} ${how} right now, as dsh does while it runs the session. Send is refused until it lets go; Preview still works.`;
}

/** A small button that copies a canonical mention; its name says what it copies. */
function copyButton(label: string, copy: () => void): HTMLElement {
  // Reached from its row with →: the list is one tab stop.
  const button = h('button', { type: 'button', class: 'icon-button copy-button', 'aria-label': label, title: `${label} (to paste into dsh)`, tabindex: '-1' });
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
    h(
      'div',
      { class: `target-title${conversation.title === undefined ? ' untitled' : ''}`, title: labelOf(conversation.sessionId, conversation.title) },
      conversation.title ?? UNTITLED,
    ),
    h(
      'div',
      { class: 'target-meta' },
      h('code', { title: conversation.sessionId }, shortId(conversation.sessionId)),
      h('span', {}, conversation.cwd ?? 'no cwd'),
      h('span', {}, `${plural(conversation.messages.length, 'message')} · ${seq}`),
    ),
  );
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
function sentNotice(state: PreviewState): string {
  const count = state.appendedSeqs?.length ?? 0;
  const what = count === 2 ? 'Both messages were' : `${plural(count, 'message')} ${count === 1 ? 'was' : 'were'}`;
  return `${what} appended to ${quoted(state.targetTitle ?? state.preview.target)}. No model runs here: the next dsh turn on this session will see them.`;
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
    h('div', { class: 'reference-head' }, h('span', { class: 'reference-label' }, h('span', { class: 'chip-at' }, '@'), h('span', { class: 'chip-label', title: reference.label }, reference.label)), ...flags.map((flag) => h('span', { class: `badge ${flag}` }, flag))),
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
