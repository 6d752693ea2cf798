/**
 * A picked session in the draft: one atomic, non-editable chip that shows the
 * title and stands for the canonical `@[label](dsh-session:…)` mention, as in
 * dsh Web. Backspace or Delete next to it removes it whole, and one space
 * separates it from what follows, never two.
 */
import { h } from './dom.js';

/** What a chip stands for: a session, the label it shows, and its canonical mention. */
interface ChipReference {
  sessionId: string;
  label: string;
  mention: string;
}

/** The chip for `candidate`; its small copy mark puts the mention on the clipboard (`copy`). */
export function chip(candidate: ChipReference, copy: (mention: string, label: string) => void): HTMLElement {
  // Not a button: a focusable control inside the combobox would be nested interaction. Keyboard users copy a
  // selected chip with Ctrl+C instead (the composer's copy handler writes mentions).
  const copyMark = h('span', { class: 'chip-copy', title: `Copy the mention of ${candidate.label} (to paste into dsh)`, 'aria-hidden': 'true' });
  copyMark.addEventListener('mousedown', (event) => {
    event.preventDefault();
    event.stopPropagation();
    copy(candidate.mention, candidate.label);
  });
  return h(
    'span',
    { class: 'chip', contenteditable: 'false', 'data-mention': candidate.mention, 'data-session-id': candidate.sessionId, title: candidate.mention },
    h('span', { class: 'chip-at' }, '@'),
    h('span', { class: 'chip-label' }, candidate.label),
    copyMark,
  );
}

function isChip(node: Node | null | undefined): node is HTMLElement {
  return node instanceof HTMLElement && node.classList.contains('chip');
}

/** The distinct sessions the draft's chips cite. */
export function citedSessions(draft: HTMLElement): Set<string> {
  return new Set([...draft.querySelectorAll<HTMLElement>('.chip')].map((element) => element.dataset.sessionId ?? ''));
}

/** The node right before (`-1`) or after (`1`) a collapsed caret in `draft`, skipping empty text. */
function besideCaret(draft: HTMLElement, side: -1 | 1): Node | null {
  const selection = window.getSelection();
  if (!selection || selection.rangeCount === 0 || !selection.isCollapsed) return null;
  const { anchorNode: node, anchorOffset: offset } = selection;
  if (!node || !draft.contains(node)) return null;
  let next: Node | null;
  if (node instanceof Text) {
    const atEdge = side === -1 ? offset === 0 : offset === node.length;
    if (!atEdge) return null;
    next = side === -1 ? node.previousSibling : node.nextSibling;
  } else {
    next = node.childNodes[side === -1 ? offset - 1 : offset] ?? null;
  }
  while (next instanceof Text && next.length === 0) next = side === -1 ? next.previousSibling : next.nextSibling;
  return next;
}

/** Backspace (`-1`) or Delete (`1`) next to a chip removes the chip whole; returns whether it did. */
export function removeChipBesideCaret(draft: HTMLElement, side: -1 | 1): boolean {
  const target = besideCaret(draft, side);
  if (!isChip(target)) return false;
  target.remove();
  return true;
}

/** The caret follows a chip and the space placed after it: typing another space there would double it. */
export function caretAfterChipGap(draft: HTMLElement): boolean {
  const selection = window.getSelection();
  if (!selection || !selection.isCollapsed || !(selection.anchorNode instanceof Text) || !draft.contains(selection.anchorNode)) return false;
  const { anchorNode: text, anchorOffset: offset } = selection;
  return offset === 1 && text.data.startsWith(' ') && isChip(text.previousSibling);
}

/**
 * Put `element` where `range` is, followed by one separating space unless a
 * space is already next (as dsh Web does), with the caret after that space.
 */
export function insertChip(range: Range, element: HTMLElement): void {
  range.deleteContents();
  // Inside a text node this splits it: [before][chip][after].
  range.insertNode(element);
  // Merge the split's empty remainder with any text after it, so "a space is next" sees that text.
  element.parentNode?.normalize();
  const next = element.nextSibling;
  const text = next instanceof Text ? next : document.createTextNode('');
  if (text !== next) element.after(text);
  if (!text.data.startsWith(' ')) text.insertData(0, ' ');
  window.getSelection()?.collapse(text, 1);
}

/** A canonical mention in text: `@[label](dsh-session:…)`, `\\` and `]` escaped in the label. */
const MENTION = /@\[((?:[^\\\]]|\\.)*)\]\((dsh-session:[A-Za-z0-9_-]+)\)/g;

/**
 * `text` as the draft's nodes: each canonical mention a chip, one space after
 * it as a picked one has, the rest as text. Pasted text and a draft kept
 * across a reload both come back this way. A mention whose URI does not
 * decode to a session id stays text (the server would refuse it in words).
 */
export function draftNodes(text: string, makeChip: (reference: ChipReference) => HTMLElement): Node[] {
  const nodes: Node[] = [];
  let afterChip = false;
  const addText = (part: string) => {
    const spaced = afterChip && !part.startsWith(' ') ? ` ${part}` : part;
    if (spaced !== '') nodes.push(document.createTextNode(spaced));
    afterChip = false;
  };
  let from = 0;
  for (const match of text.matchAll(MENTION)) {
    const sessionId = sessionIdOfUri(match[2]!);
    if (sessionId === undefined) continue;
    addText(text.slice(from, match.index));
    nodes.push(makeChip({ sessionId, label: match[1]!.replace(/\\(.)/g, '$1'), mention: match[0] }));
    afterChip = true;
    from = match.index + match[0].length;
  }
  addText(text.slice(from));
  return nodes;
}

/** The id a `dsh-session:` URI carries: base64url of the id's JSON string, exactly as it encodes back. */
function sessionIdOfUri(uri: string): string | undefined {
  try {
    const binary = atob(uri.slice('dsh-session:'.length).replaceAll('-', '+').replaceAll('_', '/'));
    const json = new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(binary, (character) => character.charCodeAt(0)));
    const id: unknown = JSON.parse(json);
    return typeof id === 'string' && JSON.stringify(id) === json ? id : undefined;
  } catch {
    return undefined;
  }
}
