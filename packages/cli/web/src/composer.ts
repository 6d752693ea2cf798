/**
 * The message composer: a plain-text editable box where `@` opens a menu of
 * sessions to reference: title matches, then sessions whose conversation
 * contains the typed text. Picking one replaces `@query` with a chip that
 * shows the title and stands for the canonical mention in the draft's text.
 */
import { formatExcerptSuffix } from '@sessref/core';
import type { Candidate, SearchHit, SessionItem } from '../../src/server/protocol.js';
import { describeError } from './api.js';
import { caretAfterChipGap, chip, citedSessions, draftNodes, insertChip, removeChipBesideCaret } from './chips.js';
import { MentionMenu } from './menu.js';

export interface ComposerHooks {
  /** Candidates for `query`; the composer aborts a request as soon as a newer one supersedes it. */
  candidates(query: string, signal: AbortSignal): Promise<Candidate[]>;
  /** Sessions whose conversation contains `query` (non-empty), aborted like {@link candidates}. */
  search(query: string, signal: AbortSignal): Promise<SearchHit[]>;
  /** The draft changed (typed, picked, cleared). */
  changed(text: string): void;
  /** Ctrl/Cmd+Enter. */
  submit(): void;
  /** Distinct sessions one message may reference (the server's `maxReferences`). */
  maxReferences(): number;
  /** Copy a chip's canonical mention out (to paste into dsh). */
  copy(mention: string, label: string): void;
  /** Why a session's log cannot be read, as the sessions list has it: the menu marks such a session. */
  readError(sessionId: string): SessionItem['readError'];
}

/** An `@query` being typed: its text node and offsets of `@` and the caret. */
interface Trigger {
  node: Text;
  start: number;
  end: number;
  query: string;
}

const MAX_QUERY = 64;

export class Composer {
  private trigger: Trigger | undefined;
  private dismissed: { node: Text; start: number } | undefined;
  private pending: AbortController | undefined;
  private readonly menu: MentionMenu;
  /** Where this tab keeps the current target's draft, so a reload does not lose it. */
  private draftKey: string | undefined;

  constructor(
    private readonly draft: HTMLElement,
    menu: HTMLElement,
    private readonly hooks: ComposerHooks,
  ) {
    this.menu = new MentionMenu(
      menu,
      { pick: (candidate) => this.pick(candidate), pickPart: (candidate, phrase) => this.pick(candidate, phrase), readError: (sessionId) => hooks.readError(sessionId) },
      draft,
    );
    draft.addEventListener('input', () => this.onInput());
    draft.addEventListener('copy', (event) => this.onCopy(event));
    draft.addEventListener('paste', (event) => this.onPaste(event));
    draft.addEventListener('keydown', (event) => this.onKeyDown(event));
    draft.addEventListener('blur', () => this.close());
    document.addEventListener('selectionchange', () => {
      if (document.activeElement === draft) this.refresh();
    });
  }

  /** The draft as the server receives it: chips become their canonical mentions. */
  get text(): string {
    return serialize(this.draft).replaceAll('\u00a0', ' ');
  }

  clear(): void {
    this.draft.replaceChildren();
    this.close();
    this.changed();
  }

  /**
   * Keep the draft for `target` in this tab's sessionStorage (a reload keeps
   * it, closing the tab forgets it), and show the draft kept for it: each
   * target has its own.
   */
  keepDraftFor(target: string): void {
    const key = `sessref-draft:${target}`;
    if (key === this.draftKey) return;
    this.draftKey = key;
    this.close();
    this.draft.replaceChildren(...this.nodesOf(sessionStorage.getItem(key) ?? ''));
    this.hooks.changed(this.text);
  }

  private changed(): void {
    const text = this.text;
    if (this.draftKey !== undefined) {
      if (text === '') sessionStorage.removeItem(this.draftKey);
      else sessionStorage.setItem(this.draftKey, text);
    }
    this.hooks.changed(text);
  }

  private nodesOf(text: string): Node[] {
    return draftNodes(text, (reference) => chip(reference, this.hooks.copy));
  }

  focus(): void {
    this.draft.focus();
    // Back from the preview or a dialog, the caret goes to the end of the draft unless it is still inside.
    const selection = window.getSelection();
    if (selection && !this.draft.contains(selection.anchorNode)) {
      selection.selectAllChildren(this.draft);
      selection.collapseToEnd();
    }
  }

  private onInput(): void {
    // An emptied box may keep a stray <br>; drop it so the placeholder shows.
    if (this.draft.textContent === '' && !this.draft.querySelector('.chip')) this.draft.replaceChildren();
    this.refresh();
    this.changed();
  }

  private onKeyDown(event: KeyboardEvent): void {
    if (this.menu.open && this.onMenuKey(event)) {
      event.preventDefault();
      return;
    }
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      this.hooks.submit();
      return;
    }
    if (this.onChipKey(event)) event.preventDefault();
  }

  /** A chip is one reference: Backspace or Delete beside it removes it whole; a second space after it is not typed. */
  private onChipKey(event: KeyboardEvent): boolean {
    if (event.ctrlKey || event.metaKey || event.altKey) return false;
    const removed =
      (event.key === 'Backspace' && removeChipBesideCaret(this.draft, -1)) || (event.key === 'Delete' && removeChipBesideCaret(this.draft, 1));
    if (removed) this.onInput();
    return removed || (event.key === ' ' && caretAfterChipGap(this.draft));
  }

  /** Copying from the draft copies what it stands for: chips as their canonical mentions, ready for dsh. */
  private onCopy(event: ClipboardEvent): void {
    const selection = window.getSelection();
    if (!selection || selection.rangeCount === 0 || selection.isCollapsed || !event.clipboardData) return;
    const holder = document.createElement('div');
    holder.append(selection.getRangeAt(0).cloneContents());
    event.clipboardData.setData('text/plain', serialize(holder).replaceAll('\u00a0', ' '));
    event.preventDefault();
  }

  /** Pasted canonical mentions become chips, as if picked from the menu; other text pastes as it is. */
  private onPaste(event: ClipboardEvent): void {
    const nodes = this.nodesOf(event.clipboardData?.getData('text/plain') ?? '');
    const selection = window.getSelection();
    const last = nodes.at(-1);
    if (!nodes.some((node) => node instanceof HTMLElement) || !selection || selection.rangeCount === 0 || !last) return;
    event.preventDefault();
    const range = selection.getRangeAt(0);
    range.deleteContents();
    const fragment = document.createDocumentFragment();
    fragment.append(...nodes);
    range.insertNode(fragment);
    // The last node is text: a chip is always followed by its space.
    selection.collapse(last, last.textContent?.length ?? 0);
    this.onInput();
  }

  /** Arrows move, Enter/Tab pick, Escape closes until the next `@`. Returns whether the key was used. */
  private onMenuKey(event: KeyboardEvent): boolean {
    switch (event.key) {
      case 'ArrowDown':
        this.menu.move(1);
        return true;
      case 'ArrowUp':
        this.menu.move(-1);
        return true;
      case 'Enter':
      case 'Tab': {
        // Shift+Enter on a content hit cites the part it found; anywhere else it picks as Enter does.
        const part = event.key === 'Enter' && event.shiftKey ? this.menu.activePart : undefined;
        const active = this.menu.active;
        if (active && !event.ctrlKey && !event.metaKey) this.pick(part?.candidate ?? active, part?.phrase);
        return active !== undefined;
      }
      case 'Escape':
        if (this.trigger) this.dismissed = { node: this.trigger.node, start: this.trigger.start };
        this.close();
        return true;
      default:
        return false;
    }
  }

  /** Open, update or close the menu for the `@query` at the caret. */
  private refresh(): void {
    const trigger = findTrigger(this.draft);
    if (!trigger) this.dismissed = undefined;
    if (!trigger || (this.dismissed?.node === trigger.node && this.dismissed.start === trigger.start)) return this.close();
    const previous = this.trigger;
    this.trigger = trigger;
    if (previous?.node === trigger.node && previous.start === trigger.start && previous.query === trigger.query) return;
    this.menu.place(caretOffset(this.draft, trigger));
    void this.request(trigger.query);
  }

  /** Ask for title matches and content matches at once; the next keystroke aborts both. */
  private async request(query: string): Promise<void> {
    this.pending?.abort();
    const controller = new AbortController();
    this.pending = controller;
    const searching = query.trim() !== '';
    this.menu.loading(query, searching);
    const current = () => this.pending === controller && !controller.signal.aborted;
    const offered = this.offered();
    const titles = this.hooks.candidates(query, controller.signal).then(
      (candidates) => {
        if (current()) this.menu.showTitles(candidates.filter(offered));
      },
      (error: unknown) => {
        if (current()) this.menu.fail(describeError(error));
      },
    );
    const content = searching
      ? this.hooks.search(query, controller.signal).then(
          (hits) => {
            if (current()) this.menu.showContent(hits.filter(offered));
          },
          (error: unknown) => {
            if (current()) this.menu.contentFailed(describeError(error));
          },
        )
      : undefined;
    await Promise.all([titles, content]);
  }

  /**
   * Which sessions the menu may offer: any, until the draft cites as many
   * distinct sessions as one message may reference; then only those already
   * cited (citing one again adds no session), and the menu says why.
   */
  private offered(): (candidate: Candidate) => boolean {
    const cited = citedSessions(this.draft);
    const max = this.hooks.maxReferences();
    if (cited.size < max) {
      this.menu.limit(undefined);
      return () => true;
    }
    this.menu.limit({
      line: `${cited.size} of ${max} references used: only those are offered`,
      reason: `This message already references ${cited.size} sessions, the most one message may carry (maxReferences = ${max}). Remove a reference to add another session.`,
    });
    return (candidate) => cited.has(candidate.sessionId);
  }

  /**
   * Put the picked session's chip where `@query` was; with `around`, the
   * excerpt suffix after its space (`{around: "…"}`, as `sessref mention
   * --around` writes it), plain text the user sees and can edit, which the
   * step reads as a citation of the part of the session around the phrase.
   */
  private pick(candidate: Candidate, around?: string): void {
    const trigger = this.trigger;
    if (!trigger) return;
    const range = document.createRange();
    range.setStart(trigger.node, trigger.start);
    range.setEnd(trigger.node, trigger.end);
    insertChip(range, chip(candidate, this.hooks.copy));
    if (around !== undefined) this.insertAfterCaret(`${formatExcerptSuffix({ around })} `);
    this.close();
    this.changed();
  }

  /** `text` typed at the caret (which a picked chip leaves after its space). */
  private insertAfterCaret(text: string): void {
    const selection = window.getSelection();
    const node = selection?.anchorNode;
    if (!(node instanceof Text) || selection === null) return;
    const at = selection.anchorOffset;
    node.insertData(at, text);
    selection.collapse(node, at + text.length);
  }

  private close(): void {
    this.pending?.abort();
    this.pending = undefined;
    this.trigger = undefined;
    this.menu.hide();
  }
}

/** The `@query` before a collapsed caret: `@` at a word start, no line break, not too long. */
function findTrigger(draft: HTMLElement): Trigger | undefined {
  const selection = window.getSelection();
  if (!selection || selection.rangeCount === 0 || !selection.isCollapsed) return undefined;
  const node = selection.anchorNode;
  if (!(node instanceof Text) || !draft.contains(node)) return undefined;
  const before = node.data.slice(0, selection.anchorOffset);
  const start = before.lastIndexOf('@');
  if (start < 0 || (start > 0 && !/\s/.test(before[start - 1]!))) return undefined;
  const query = before.slice(start + 1);
  if (query.length > MAX_QUERY || /[\n\r]/.test(query) || query.startsWith(' ')) return undefined;
  return { node, start, end: selection.anchorOffset, query };
}

/** Horizontal offset of the trigger's `@` inside the composer, for placing the menu. */
function caretOffset(draft: HTMLElement, trigger: Trigger): number {
  const range = document.createRange();
  range.setStart(trigger.node, trigger.start);
  range.setEnd(trigger.node, Math.min(trigger.start + 1, trigger.node.length));
  const box = draft.parentElement?.getBoundingClientRect();
  return box ? range.getBoundingClientRect().left - box.left : 0;
}

/** Text of the editable box: chips as mentions, <br> and blocks as line breaks. */
function serialize(node: Node): string {
  let out = '';
  for (const child of node.childNodes) {
    if (child instanceof Text) out += child.data;
    else if (child instanceof HTMLElement && child.dataset.mention !== undefined) out += child.dataset.mention;
    else if (child.nodeName === 'BR') out += '\n';
    else if (child instanceof HTMLElement) out += (out === '' || out.endsWith('\n') ? '' : '\n') + serialize(child);
  }
  return out;
}
