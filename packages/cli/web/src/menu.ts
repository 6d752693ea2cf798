/**
 * The `@` candidate menu: title matches first, then a "Found in conversation"
 * group of sessions whose conversation contains the typed text, each with a
 * snippet of the matching message. One active row across both groups;
 * rendering, the active row, and mouse picking.
 */
import { excerptAround, type PlainExcerpt } from '@sessref/core';
import type { Candidate, SearchHit, SessionItem } from '../../src/server/protocol.js';
import { formatIndexProgress } from '../../src/format.js';
import { phraseOfHit } from '../../src/phrases.js';
import { api } from './api.js';
import { h, highlighted } from './dom.js';
import { formatAge } from './format.js';
import { unreadableBadge } from './views.js';

export interface MenuHooks {
  /** The row picked (Enter, Tab or a click). */
  pick(candidate: Candidate): void;
  /** A content hit's part picked ("Cite this part", or Shift+Enter): the session cited around `phrase`, not whole. */
  pickPart(candidate: SearchHit, phrase: string): void;
  /** Why a session's log cannot be read, when it cannot: its row is marked, so Preview's failure is no surprise. */
  readError(sessionId: string): SessionItem['readError'];
}

/** How often a pending content search asks how far the content index has come. */
const INDEX_POLL_MS = 500;

/** A row of the menu: a title match, or a content hit. */
export type MenuEntry = { kind: 'title'; candidate: Candidate } | { kind: 'content'; candidate: SearchHit };

/** The content group's state for the current query. */
type ContentState = { status: 'idle' } | { status: 'searching' } | { status: 'done'; hits: SearchHit[] } | { status: 'failed'; message: string };

export class MentionMenu {
  private titles: Candidate[] | undefined;
  private content: ContentState = { status: 'idle' };
  private entries: MenuEntry[] = [];
  private rows: HTMLElement[] = [];
  private index = 0;
  private query = '';
  /** Why fewer sessions are offered than match (the reference limit): one line under the heading, the whole reason its tooltip. */
  private notice: { line: string; reason: string } | undefined;
  /** How far a first build of the content index has come, while a content search waits for it. */
  private indexing: string | undefined;
  private polling = false;

  /**
   * `combobox` is the composer: it owns the menu (`aria-controls`), says
   * whether it is open (`aria-expanded`) and which option is active
   * (`aria-activedescendant`), since focus never leaves it.
   */
  constructor(
    private readonly element: HTMLElement,
    private readonly hooks: MenuHooks,
    private readonly combobox?: HTMLElement,
  ) {
    // Keep the caret in the composer while clicking a row.
    element.addEventListener('mousedown', (event) => event.preventDefault());
  }

  get open(): boolean {
    return !this.element.hidden;
  }

  get active(): Candidate | undefined {
    return this.entries[this.index]?.candidate;
  }

  /** The active row's hit and the phrase it would cite the part around, when it is a content hit. */
  get activePart(): { candidate: SearchHit; phrase: string } | undefined {
    const entry = this.entries[this.index];
    return entry?.kind === 'content' ? partOf(entry.candidate) : undefined;
  }

  /** Horizontal position inside the composer, clamped to stay visible. */
  place(left: number): void {
    const max = Math.max(0, (this.element.parentElement?.clientWidth ?? 0) - 380);
    this.element.style.left = `${Math.round(Math.min(Math.max(0, left - 12), max))}px`;
  }

  /** A new query: both groups are on their way (the content group only for a non-empty query). */
  loading(query: string, searching: boolean): void {
    this.query = query;
    this.titles = undefined;
    this.content = searching ? { status: 'searching' } : { status: 'idle' };
    this.index = 0;
    this.element.hidden = false;
    this.combobox?.setAttribute('aria-expanded', 'true');
    this.element.setAttribute('aria-busy', 'true');
    if (this.entries.length === 0) this.status('Searching sessions…');
  }

  showTitles(titles: Candidate[]): void {
    this.titles = titles;
    this.render();
  }

  showContent(hits: SearchHit[]): void {
    this.content = { status: 'done', hits };
    this.render();
  }

  contentFailed(message: string): void {
    this.content = { status: 'failed', message };
    this.render();
  }

  fail(message: string): void {
    this.entries = [];
    this.element.removeAttribute('aria-busy');
    this.status(message, 'menu-error');
  }

  move(delta: number): void {
    if (this.entries.length === 0) return;
    this.activate((this.index + delta + this.entries.length) % this.entries.length);
  }

  /** Say why the menu offers fewer sessions than match; `undefined` clears it. */
  limit(notice: { line: string; reason: string } | undefined): void {
    this.notice = notice;
  }

  hide(): void {
    this.element.hidden = true;
    // A hidden menu keeps no rows: nothing stale can be found in it, by a screen reader or a test.
    this.element.replaceChildren();
    this.combobox?.setAttribute('aria-expanded', 'false');
    this.combobox?.removeAttribute('aria-activedescendant');
    this.titles = undefined;
    this.content = { status: 'idle' };
    this.entries = [];
    this.rows = [];
    this.index = 0;
  }

  private activate(index: number): void {
    this.index = index;
    this.rows.forEach((row, at) => {
      row.classList.toggle('active', at === index);
      row.setAttribute('aria-selected', String(at === index));
    });
    const active = this.rows[index];
    if (active) this.combobox?.setAttribute('aria-activedescendant', active.id);
    else this.combobox?.removeAttribute('aria-activedescendant');
    this.rows[index]?.scrollIntoView({ block: 'nearest' });
  }

  private status(text: string, className = 'menu-status'): void {
    this.rows = [];
    this.combobox?.removeAttribute('aria-activedescendant');
    // A listbox must own an option: the message stands in as one that cannot be chosen.
    this.element.replaceChildren(...this.heading(), h('div', { class: className, role: 'option', 'aria-disabled': 'true', 'aria-selected': 'false' }, text));
  }

  private heading(): HTMLElement[] {
    const head = h('div', { class: 'menu-head' }, 'Reference a session', this.query ? h('span', { class: 'menu-query' }, `“${this.query}”`) : null);
    if (this.notice === undefined) return [head];
    return [head, h('p', { class: 'menu-limit', title: this.notice.reason }, this.notice.line)];
  }

  /** Both groups as they stand; the active row stays on the same session when a group arrives later. */
  private render(): void {
    if (this.titles === undefined) return; // the title group leads; content waits for it
    const keep = this.entries[this.index];
    const titleIds = new Set(this.titles.map((candidate) => candidate.sessionId));
    const hits = this.content.status === 'done' ? this.content.hits.filter((hit) => !titleIds.has(hit.sessionId)) : [];
    this.entries = [
      ...this.titles.map((candidate): MenuEntry => ({ kind: 'title', candidate })),
      ...hits.map((candidate): MenuEntry => ({ kind: 'content', candidate })),
    ];
    const pending = this.content.status === 'searching';
    if (!pending) this.element.removeAttribute('aria-busy');
    if (this.entries.length === 0 && !pending) {
      const failed = this.content.status === 'failed' ? ` (conversation search failed: ${this.content.message})` : '';
      return this.status(this.query ? `No session matches${failed}` : 'No other sessions');
    }
    const found = keep === undefined ? -1 : this.entries.findIndex((entry) => entry.kind === keep.kind && entry.candidate.sessionId === keep.candidate.sessionId);
    this.index = found >= 0 ? found : Math.min(this.index, Math.max(0, this.entries.length - 1));
    this.rows = this.entries.map((entry, index) => this.row(entry, index));
    const titleRows = this.rows.slice(0, this.titles.length);
    const contentRows = this.rows.slice(this.titles.length);
    this.element.replaceChildren(
      ...this.heading(),
      ...(titleRows.length === 0 && this.query ? [h('div', { class: 'menu-status menu-none' }, 'No title matches')] : titleRows),
      ...this.contentGroup(contentRows),
      h('div', { class: 'menu-foot' }, `↑↓ choose · Enter or Tab insert${hits.length > 0 ? ' · Shift+Enter cite the part found' : ''} · Esc close`),
    );
    this.activate(this.index);
  }

  private contentGroup(rows: HTMLElement[]): HTMLElement[] {
    const { status } = this.content;
    if (status === 'idle') return [];
    if (status === 'done' && rows.length === 0) return [];
    const head = h('div', { class: 'menu-group', role: 'presentation' }, 'Found in conversation');
    if (status === 'searching') {
      this.followIndex();
      const building = this.indexing === undefined ? [] : [h('div', { class: 'menu-status menu-indexing', role: 'status' }, this.indexing)];
      return [head, h('div', { class: 'menu-status menu-searching' }, 'Searching conversations…'), ...building];
    }
    if (status === 'failed') return [head, h('div', { class: 'menu-error' }, `Conversation search failed: ${this.content.status === 'failed' ? this.content.message : ''}`)];
    return [h('div', { class: 'menu-group-box', role: 'group', 'aria-label': 'Found in conversation' }, head, ...rows)];
  }

  /**
   * While a content search is pending, ask how far the content index has
   * come every {@link INDEX_POLL_MS} and show it under the group's heading: a
   * first build can take a while. Stops when the search is answered or the
   * index is ready.
   */
  private followIndex(): void {
    if (this.polling) return;
    this.polling = true;
    const poll = async (): Promise<void> => {
      const status = await api.indexStatus().catch(() => undefined);
      const searching = this.content.status === 'searching';
      const line = status?.state === 'building' && searching ? formatIndexProgress(status) : undefined;
      if (line !== this.indexing) {
        this.indexing = line;
        if (this.open) this.render();
      }
      if (searching && status?.state === 'building') setTimeout(() => void poll(), INDEX_POLL_MS);
      else this.polling = false;
    };
    void poll();
  }

  /**
   * "Cite this part" on a content hit: the session cited around the phrase
   * the hit found instead of whole. Not a button, as the chip's copy mark
   * is not: a focusable control inside an option would be nested
   * interaction; keyboard users press Shift+Enter on the row.
   */
  private partControl(candidate: SearchHit): HTMLElement | null {
    const part = partOf(candidate);
    if (part === undefined) return null;
    const control = h('span', { class: 'menu-cite-part', title: `Cite only the part of this session around “${part.phrase}”`, 'aria-hidden': 'true' }, 'Cite this part');
    control.addEventListener('click', (event) => {
      // The row's own click cites the whole session.
      event.stopPropagation();
      this.hooks.pickPart(part.candidate, part.phrase);
    });
    return control;
  }

  private row(entry: MenuEntry, index: number): HTMLElement {
    const { candidate } = entry;
    const text =
      entry.kind === 'title'
        ? h(
            'span',
            { class: 'menu-text' },
            h('span', { class: 'menu-name', title: candidate.label }, h('span', { class: 'menu-kind' }, 'Session · '), h('span', { class: 'menu-title' }, ...highlighted(candidate.label, this.query))),
            h('span', { class: 'menu-meta' }, ...sessionDescription(candidate, this.query)),
          )
        : h(
            'span',
            { class: 'menu-text' },
            h('span', { class: 'menu-name', title: candidate.label }, h('span', { class: 'menu-kind' }, 'Session · '), h('span', { class: 'menu-title' }, candidate.label)),
            h(
              'span',
              { class: 'menu-snippet' },
              h('span', { class: 'menu-role' }, roleLabel(entry.candidate)),
              ...marked(excerptAround({ snippet: entry.candidate.snippet, ranges: entry.candidate.highlights }, MENU_SNIPPET)),
            ),
          );
    const part = entry.kind === 'content' ? this.partControl(entry.candidate) : null;
    const readError = this.hooks.readError(candidate.sessionId);
    const row = h(
      'div',
      {
        class: `${entry.kind === 'title' ? 'menu-item' : 'menu-item menu-hit'}${readError === undefined ? '' : ' unreadable'}`,
        id: `menu-option-${index}`,
        role: 'option',
        'aria-selected': 'false',
        'data-session-id': candidate.sessionId,
        'data-seq': entry.kind === 'content' ? entry.candidate.seq : undefined,
      },
      h('span', { class: 'menu-avatar', 'aria-hidden': 'true' }, initial(candidate.label)),
      text,
      part,
      readError === undefined ? null : unreadableBadge(readError),
    );
    row.addEventListener('mousemove', () => {
      if (this.index !== index) this.activate(index);
    });
    row.addEventListener('click', () => this.hooks.pick(candidate));
    return row;
  }
}

/**
 * The most of a hit's snippet a row shows, in code points: two lines at the
 * menu's narrowest, the match within them (the row clamps what is longer).
 */
const MENU_SNIPPET = 80;

/** How dsh Web describes a session row: `<id> · ` when the title differs, the cwd or `(no cwd)`, then the time. */
function sessionDescription(candidate: Candidate, query: string): (string | HTMLElement)[] {
  const id = candidate.label === candidate.sessionId ? [] : [...highlighted(candidate.sessionId, query), ' · '];
  const created = new Date(candidate.createdAt).toISOString();
  return [...id, ...highlighted(candidate.cwd ?? '(no cwd)', query), ' · ', h('time', { datetime: created, title: created }, formatAge(candidate.createdAt))];
}

/** A hit and the phrase its part is cited around; none when its snippet gives no words. */
function partOf(candidate: SearchHit): { candidate: SearchHit; phrase: string } | undefined {
  const phrase = phraseOfHit({ snippet: candidate.snippet, ranges: candidate.highlights });
  return phrase === '' ? undefined : { candidate, phrase };
}

function roleLabel(hit: SearchHit): string {
  if (hit.checkpoint) return 'Checkpoint';
  return hit.role === 'assistant' ? 'Assistant' : 'You';
}

/**
 * The snippet as text nodes with each highlighted span in a <mark>. Spans
 * come from the server; anything out of order or out of bounds is ignored,
 * and the text is never parsed as HTML.
 */
function marked({ snippet, ranges }: PlainExcerpt): (string | HTMLElement)[] {
  const parts: (string | HTMLElement)[] = [];
  let from = 0;
  for (const [start, end] of ranges) {
    if (!Number.isInteger(start) || !Number.isInteger(end) || start < from || end <= start || end > snippet.length) continue;
    if (start > from) parts.push(snippet.slice(from, start));
    parts.push(h('mark', {}, snippet.slice(start, end)));
    from = end;
  }
  if (from < snippet.length) parts.push(snippet.slice(from));
  return parts;
}

function initial(label: string): string {
  return ([...label.trim()][0] ?? '?').toUpperCase();
}
