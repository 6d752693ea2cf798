/** The `@` candidate menu: rendering, the active row, and mouse picking. */
import type { Candidate } from '../../src/server/protocol.js';
import { h, highlighted } from './dom.js';
import { formatAge } from './format.js';

export class MentionMenu {
  private items: Candidate[] = [];
  private rows: HTMLElement[] = [];
  private index = 0;
  private query = '';

  constructor(
    private readonly element: HTMLElement,
    private readonly onPick: (candidate: Candidate) => void,
  ) {
    // Keep the caret in the composer while clicking a row.
    element.addEventListener('mousedown', (event) => event.preventDefault());
  }

  get open(): boolean {
    return !this.element.hidden;
  }

  get active(): Candidate | undefined {
    return this.items[this.index];
  }

  /** Horizontal position inside the composer, clamped to stay visible. */
  place(left: number): void {
    const max = Math.max(0, (this.element.parentElement?.clientWidth ?? 0) - 380);
    this.element.style.left = `${Math.round(Math.min(Math.max(0, left - 12), max))}px`;
  }

  loading(query: string): void {
    this.query = query;
    this.element.hidden = false;
    this.element.setAttribute('aria-busy', 'true');
    if (this.items.length === 0) this.status('Searching sessions…');
  }

  show(items: Candidate[], query: string): void {
    this.items = items;
    this.query = query;
    this.index = 0;
    this.element.removeAttribute('aria-busy');
    this.render();
  }

  fail(message: string): void {
    this.items = [];
    this.element.removeAttribute('aria-busy');
    this.status(message, 'menu-error');
  }

  move(delta: number): void {
    if (this.items.length === 0) return;
    this.activate((this.index + delta + this.items.length) % this.items.length);
  }

  private activate(index: number): void {
    this.index = index;
    this.rows.forEach((row, at) => {
      row.classList.toggle('active', at === index);
      row.setAttribute('aria-selected', String(at === index));
    });
    this.rows[index]?.scrollIntoView({ block: 'nearest' });
  }

  hide(): void {
    this.element.hidden = true;
    this.items = [];
    this.rows = [];
    this.index = 0;
  }

  private status(text: string, className = 'menu-status'): void {
    this.rows = [];
    this.element.replaceChildren(this.heading(), h('div', { class: className }, text));
  }

  private heading(): HTMLElement {
    return h('div', { class: 'menu-head' }, 'Reference a session', this.query ? h('span', { class: 'menu-query' }, `“${this.query}”`) : null);
  }

  private render(): void {
    if (this.items.length === 0) return this.status(this.query ? 'No session matches' : 'No other sessions');
    this.rows = this.items.map((candidate, index) => this.row(candidate, index));
    this.element.replaceChildren(this.heading(), ...this.rows, h('div', { class: 'menu-foot' }, '↑↓ choose · Enter or Tab insert · Esc close'));
    this.activate(this.index);
  }

  private row(candidate: Candidate, index: number): HTMLElement {
    const row = h(
      'div',
      { class: 'menu-item', role: 'option', 'data-session-id': candidate.sessionId },
      h('span', { class: 'menu-avatar', 'aria-hidden': 'true' }, initial(candidate.label)),
      h(
        'span',
        { class: 'menu-text' },
        h('span', { class: 'menu-title' }, ...highlighted(candidate.label, this.query)),
        h('span', { class: 'menu-meta' }, ...highlighted(candidate.cwd ?? 'no cwd', this.query), ' · ', formatAge(candidate.createdAt)),
      ),
    );
    row.addEventListener('mousemove', () => {
      if (this.index !== index) this.activate(index);
    });
    row.addEventListener('click', () => this.onPick(candidate));
    return row;
  }
}

function initial(label: string): string {
  return ([...label.trim()][0] ?? '?').toUpperCase();
}
