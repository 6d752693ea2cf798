/**
 * The target's conversation, drawn a window at a time. A long session (the
 * demo's 4,000 messages) would otherwise put tens of thousands of elements on
 * the page, so opening it and every keystroke's layout would scale with its
 * length. Only the messages within OVERSCAN pixels of the visible part exist
 * as elements; two spacers stand for the rest, sized from each message's
 * measured height (estimated until it has been drawn once).
 *
 * What this gives up: the browser's find-in-page sees only the drawn
 * messages (the @ menu's "Found in conversation" searches whole sessions).
 */
import type { DisplayMessage, MessagesResponse } from '../../src/server/protocol.js';
import { h } from './dom.js';

/** Pixels drawn beyond the visible part on each side, so a scroll step rarely meets an undrawn edge. */
const OVERSCAN = 900;
/** Space after each message (its margin in style.css), part of its slot. */
const GAP = 12;

export function renderConversation(section: HTMLElement, conversation: MessagesResponse | undefined): void {
  let view = views.get(section);
  if (!view) {
    view = new ConversationView(section);
    views.set(section, view);
  }
  view.show(conversation);
}

const views = new WeakMap<HTMLElement, ConversationView>();

class ConversationView {
  private sessionId: string | undefined;
  private messages: readonly DisplayMessage[] = [];
  /** Each message's slot (its height plus GAP): measured once drawn, estimated before. */
  private heights: number[] = [];
  /** offsets[i] is where message i starts; offsets[n] the whole height. Rebuilt when a height changes. */
  private offsets: number[] = [0];
  private readonly drawn = new Map<number, HTMLElement>();
  /** Seqs of the collapsed rows (recalls, checkpoints) the reader opened in this session. */
  private readonly opened = new Set<number>();
  private first = 0;
  private last = 0;
  private readonly before = h('div', { class: 'conversation-spacer', 'aria-hidden': 'true' });
  private readonly after = h('div', { class: 'conversation-spacer', 'aria-hidden': 'true' });
  private scheduled = false;
  /** A drawn message changed height (a details row opened, the window resized), or the view itself did (the preview's sheet). */
  private readonly resized = new ResizeObserver(() => this.schedule());

  constructor(private readonly section: HTMLElement) {
    section.addEventListener('scroll', () => this.schedule(), { passive: true });
    this.resized.observe(section);
    // Home and End go to the true ends at once: the browser's own (animated) jump aims at a height the undrawn
    // messages' estimates still make up, and would stop short of the end once they are measured on the way.
    section.addEventListener('keydown', (event) => {
      if (event.target !== section || this.messages.length === 0 || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
      if (event.key === 'End') this.scrollToEnd();
      else if (event.key === 'Home') {
        section.scrollTop = 0;
        this.update();
      } else return;
      event.preventDefault();
    });
  }

  show(conversation: MessagesResponse | undefined): void {
    const sameSession = conversation !== undefined && conversation.sessionId === this.sessionId;
    const stayAtEnd = !sameSession || this.atEnd();
    const [previous, measured] = [this.messages, this.heights];
    this.clear();
    if (!sameSession) this.opened.clear();
    this.sessionId = conversation?.sessionId;
    if (!conversation) {
      this.section.replaceChildren(h('div', { class: 'empty-state' }, h('div', { class: 'empty-icon' }, '@'), h('p', {}, 'Choose a target session to see its conversation.')));
      return;
    }
    if (conversation.messages.length === 0) {
      this.section.replaceChildren(h('div', { class: 'empty-state' }, h('p', {}, 'This session has no messages yet. Write the first one below.')));
      return;
    }
    this.messages = conversation.messages;
    // The same session again (after Send, or a change on disk): the heights already measured still hold.
    this.heights = this.messages.map((message, index) => (sameSession && previous[index]?.seq === message.seq ? measured[index]! : estimate(message)));
    this.reindex();
    this.section.replaceChildren(this.before, this.after);
    if (stayAtEnd) this.scrollToEnd();
    else this.update();
  }

  private clear(): void {
    for (const element of this.drawn.values()) this.resized.unobserve(element);
    this.drawn.clear();
    this.messages = [];
    this.heights = [];
    this.first = this.last = 0;
  }

  private atEnd(): boolean {
    const { scrollTop, scrollHeight, clientHeight } = this.section;
    return scrollHeight - scrollTop - clientHeight < 4;
  }

  /** Draw the end, then correct the estimates above it until the end stays put. */
  private scrollToEnd(): void {
    for (let pass = 0; pass < 4; pass++) {
      this.section.scrollTop = this.section.scrollHeight;
      if (!this.update()) break;
    }
    this.section.scrollTop = this.section.scrollHeight;
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    requestAnimationFrame(() => {
      this.scheduled = false;
      this.update();
    });
  }

  /** Draw the messages near the visible part, measure them, and size the spacers. Returns whether anything moved. */
  private update(): boolean {
    const count = this.messages.length;
    if (count === 0) return false;
    // At the end, stay at the end (End pressed, a message appended); elsewhere, keep the message in view in place.
    const pinned = this.atEnd();
    const anchor = pinned ? undefined : this.anchor();
    const padding = parseFloat(getComputedStyle(this.section).paddingTop) || 0;
    const top = this.section.scrollTop - padding - OVERSCAN;
    const bottom = this.section.scrollTop + this.section.clientHeight - padding + OVERSCAN;
    const first = Math.min(count - 1, Math.max(0, this.indexAt(top)));
    const last = Math.max(first + 1, Math.min(count, this.indexAt(bottom) + 1));
    let changed = first !== this.first || last !== this.last;
    for (const [index, element] of this.drawn) {
      if (index >= first && index < last) continue;
      this.resized.unobserve(element);
      element.remove();
      this.drawn.delete(index);
    }
    let previous: Element = this.before;
    for (let index = first; index < last; index++) {
      let element = this.drawn.get(index);
      if (!element) {
        element = this.draw(index);
        this.drawn.set(index, element);
        this.resized.observe(element);
      }
      if (previous.nextElementSibling !== element) previous.after(element);
      previous = element;
    }
    this.first = first;
    this.last = last;
    for (const [index, element] of this.drawn) {
      const height = element.offsetHeight + GAP;
      if (height === this.heights[index]) continue;
      this.heights[index] = height;
      changed = true;
    }
    if (changed) this.reindex();
    this.before.style.height = `${this.offsets[first]}px`;
    this.after.style.height = `${this.offsets[count]! - this.offsets[last]!}px`;
    // Keep what the reader was looking at where it was, whatever changed above it.
    if (pinned) this.section.scrollTop = this.section.scrollHeight;
    else if (anchor?.element.isConnected) this.section.scrollTop += anchor.element.getBoundingClientRect().top - anchor.top;
    return changed;
  }

  /** The first drawn message still in view, and where it is now. */
  private anchor(): { element: HTMLElement; top: number } | undefined {
    const viewTop = this.section.getBoundingClientRect().top;
    for (let index = this.first; index < this.last; index++) {
      const element = this.drawn.get(index);
      const box = element?.getBoundingClientRect();
      if (element && box && box.bottom > viewTop) return { element, top: box.top };
    }
    return undefined;
  }

  private reindex(): void {
    const offsets = [0];
    for (const height of this.heights) offsets.push(offsets[offsets.length - 1]! + height);
    this.offsets = offsets;
  }

  /** The message whose slot holds `y` (clamped to the first and last). */
  private indexAt(y: number): number {
    let low = 0;
    let high = this.messages.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (this.offsets[middle]! <= y) low = middle;
      else high = middle - 1;
    }
    return low;
  }

  private draw(index: number): HTMLElement {
    const message = this.messages[index]!;
    // As dsh Web's replay: a message sent with references names them under its text; the snapshot after it is a recall row.
    const element = messageView(message, referencedBy(this.messages[index + 1]));
    // A row the reader opened stays open when it is scrolled away and drawn again.
    const details = element.querySelector('details');
    if (details) {
      details.open = this.opened.has(message.seq);
      details.addEventListener('toggle', () => (details.open ? this.opened.add(message.seq) : this.opened.delete(message.seq)));
    }
    return element;
  }
}

/** A first guess at a message's slot from its text, replaced by the measured height once drawn. */
function estimate(message: DisplayMessage): number {
  if (message.kind !== 'user' && message.kind !== 'assistant') return 46 + GAP;
  const lines = message.text.split('\n').reduce((sum, line) => sum + Math.max(1, Math.ceil(line.length / 90)), 0);
  return 44 + lines * 20 + GAP;
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
    h('span', { class: 'recall-labels', title: references.map((reference) => reference.label).join(', ') }, ...labels),
    h('span', { class: 'message-seq' }, `#${message.seq}`),
  );
  const counts = references.map((reference) =>
    h(
      'li',
      { class: 'recall' },
      h('span', { class: 'recall-label', title: reference.label }, reference.label),
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
