import type { ProjectedItem } from './projection.js';
import { escapeTagOpeners } from './serialization.js';
import type { ReferencedSessionData, ReferenceRetentionStats } from './types.js';
import { toWellFormed, utf8Length, utf8Prefix, utf8Suffix } from './utf8.js';

/** What one source contributes before budgeting. */
export interface RetentionInput {
  sessionId: string;
  label: string;
  cwd: string | null;
  capturedThroughSeq: number | null;
  items: readonly ProjectedItem[];
  /** UTF-8 budget of the serialized (tag-safe) data object. */
  maxBytes: number;
  /** Which part of the conversation to keep; the newest messages (the contract's rule) when absent. */
  window?: ExcerptWindow;
}

/** A UTF-16 `[start, end)` span of one item's text. */
export interface TextSpan {
  start: number;
  end: number;
}

/**
 * The part of a conversation an excerpt keeps, by item index (see
 * `selectExcerpt`): the item at `index` and its neighbours on both sides
 * while they fit, its `span` kept whole when the item alone must be cut; or
 * the items `first` to `last` (inclusive), retained among themselves as a
 * whole conversation is.
 */
export type ExcerptWindow = { kind: 'around'; index: number; span: TextSpan } | { kind: 'range'; first: number; last: number };

/** A source fitted to its budget. `json` is the exact serialized data object; `bytes` its UTF-8 length. */
export interface RetainedReference {
  data: ReferencedSessionData;
  json: string;
  bytes: number;
  stats: ReferenceRetentionStats;
  /** With a window: the indices of the first and last item kept (so an entry can say which part was carried). */
  kept?: { first: number; last: number };
}

/** The notice that replaces the middle of a cut message. */
export function omissionNotice(omittedBytes: number): string {
  return `\n[… omitted ${omittedBytes} UTF-8 bytes …]`;
}

/** The notice that replaces the start of a message an excerpt cut around its phrase. */
function leadingOmissionNotice(omittedBytes: number): string {
  return `[… omitted ${omittedBytes} UTF-8 bytes …]\n`;
}

/** One kept item: its current text, serialized form and size. */
interface Kept {
  readonly item: ProjectedItem;
  text: string;
  json: string;
  bytes: number;
  cut: boolean;
  /** Original bytes cut out of this item's text. */
  omitted: number;
  /** The span an excerpt's cut keeps whole (its phrase), instead of the head and tail. */
  focus?: TextSpan;
}

/**
 * One direction in which retention adds items: from `next` by `step` up to
 * (not including) `end`. The first item that does not fit closes the lane,
 * so what a lane keeps is contiguous.
 */
interface Lane {
  next: number;
  readonly step: 1 | -1;
  readonly end: number;
  open: boolean;
}

/** Which items must be kept, which may be, and in which order they are offered. */
interface KeepPlan {
  mandatory: boolean[];
  lanes: Lane[];
  /** Items a window leaves out before any budgeting: `[first, last]` are offered, the rest omitted. */
  first: number;
  last: number;
}

/**
 * The contract's plan keeps checkpoints and the newest item, then offers the
 * rest newest first. An excerpt around an item keeps only that item and
 * offers its neighbours on both sides in turn, nearest first; a range is a
 * conversation of its own, planned as the contract plans a whole one.
 */
function planOf(items: readonly ProjectedItem[], window: ExcerptWindow | undefined): KeepPlan {
  if (window?.kind === 'around') {
    const { index } = window;
    const mandatory = items.map((_, at) => at === index);
    const lanes: Lane[] = [
      { next: index - 1, step: -1, end: -1, open: true },
      { next: index + 1, step: 1, end: items.length, open: true },
    ];
    return { mandatory, lanes, first: 0, last: items.length - 1 };
  }
  const first = window?.first ?? 0;
  const last = window?.last ?? items.length - 1;
  const mandatory = items.map((item, at) => at >= first && at <= last && (item.checkpoint || at === last));
  return { mandatory, lanes: [{ next: last - 1, step: -1, end: first - 1, open: true }], first, last };
}

/**
 * Fit one source into `maxBytes`, or `undefined` when even its fixed fields
 * (or the messages that cannot be dropped, cut to nothing) do not fit.
 *
 * 1. Drop the oldest items that are neither checkpoints nor the newest item.
 *    With an excerpt's `window`, the items outside it are left out first;
 *    around an item, its neighbours are kept nearest first on both sides in
 *    turn, each side stopping at its first item that does not fit.
 * 2. Cut the largest remaining item to the most head/tail bytes that fit
 *    (an excerpt's one item: the most bytes around its span).
 *
 * Every item is serialized at most once on the way in, and only the kept
 * window is serialized at all: removed items cost one byte count each, so the
 * work is linear in the source and independent of how many items are dropped.
 * Cutting searches only up to the budget, never the whole of a huge message.
 */
export function retainReference(input: RetentionInput): RetainedReference | undefined {
  const { items, maxBytes } = input;
  const head =
    `{"sessionId":${json(input.sessionId)},"label":${json(input.label)},"cwd":${json(input.cwd)},` +
    `"capturedThroughSeq":${JSON.stringify(input.capturedThroughSeq)},"conversation":[`;
  const tail = ']}';
  const fixedBytes = utf8Length(head) + tail.length;
  if (fixedBytes > maxBytes) return undefined;

  const plan = planOf(items, input.window);
  const { mandatory } = plan;
  const slots: (Kept | undefined)[] = items.map((item, index) => (mandatory[index] ? serialize(item, item.text) : undefined));
  if (input.window?.kind === 'around') slots[input.window.index]!.focus = input.window.span;
  let keptCount = mandatory.filter(Boolean).length;
  let total = fixedBytes + Math.max(0, keptCount - 1);
  for (const slot of slots) total += slot?.bytes ?? 0;

  // Items a window leaves out are omitted whatever the budget (none without a range).
  let omittedMessages = plan.first + (items.length - 1 - plan.last);
  let omittedBytes = 0;
  for (let index = 0; index < plan.first; index++) omittedBytes += utf8Length(items[index]!.text);
  for (let index = plan.last + 1; index < items.length; index++) omittedBytes += utf8Length(items[index]!.text);

  // Step 1: each lane keeps the longest run from its start that still fits; lanes take turns.
  const overBudget = total > maxBytes;
  for (const lane of plan.lanes) lane.open = !overBudget;
  for (let offered = true; offered; ) {
    offered = false;
    for (const lane of plan.lanes) {
      const index = lane.next;
      if (lane.step < 0 ? index <= lane.end : index >= lane.end) continue;
      lane.next += lane.step;
      offered = true;
      if (mandatory[index]) continue;
      const item = items[index]!;
      if (lane.open) {
        const kept = serialize(item, item.text);
        if (total + kept.bytes + 1 <= maxBytes) {
          slots[index] = kept;
          total += kept.bytes + 1;
          keptCount++;
          continue;
        }
        lane.open = false;
      }
      omittedMessages++;
      omittedBytes += utf8Length(item.text);
    }
  }

  // Step 2: shorten the largest current text by the overflow until the object fits.
  const kept = slots.filter((slot): slot is Kept => slot !== undefined);
  if (total > maxBytes) {
    // Every kept text cut to nothing is the least step 2 can reach: when even
    // that is too big, fail now instead of cutting item after item in vain.
    if (fixedBytes + kept.length - 1 + sumOf(kept, emptiedBytes) > maxBytes) return undefined;
    const victims = new VictimQueue(kept);
    while (total > maxBytes) {
      const victim = victims.pop();
      if (victim === undefined) return undefined;
      const target = victim.textBytes - (total - maxBytes);
      const cut = cutToBytes(victim.slot, target);
      total += cut.kept.bytes - victim.slot.bytes;
      omittedBytes += cut.omitted - victim.slot.omitted;
      Object.assign(victim.slot, cut.kept);
      victims.push(victim.slot, victim.index);
    }
  }

  const truncated = omittedMessages > 0 || kept.some((slot) => slot.cut);
  return {
    data: {
      sessionId: input.sessionId,
      label: input.label,
      cwd: input.cwd,
      capturedThroughSeq: input.capturedThroughSeq,
      conversation: kept.map(({ item, text }) => ({ role: item.role, text })),
    },
    json: head + kept.map((slot) => slot.json).join(',') + tail,
    bytes: total,
    stats: {
      compacted: items.some((item) => item.checkpoint),
      originalMessages: items.length,
      retainedMessages: kept.length,
      omittedMessages,
      omittedBytes,
      truncated,
    },
    ...(input.window === undefined ? {} : { kept: keptSpan(slots) }),
  };
}

/** The indices of the first and last kept item (a retention always keeps at least one). */
function keptSpan(slots: readonly (Kept | undefined)[]): { first: number; last: number } {
  let last = slots.length - 1;
  while (last > 0 && slots[last] === undefined) last--;
  return { first: slots.findIndex((slot) => slot !== undefined), last };
}

function json(value: string | null): string {
  return escapeTagOpeners(JSON.stringify(value));
}

function serialize(item: ProjectedItem, text: string, omitted = 0): Kept {
  const encoded = `{"role":"${item.role}","text":${json(text)}}`;
  return { item, text, json: encoded, bytes: utf8Length(encoded), cut: omitted > 0, omitted };
}

/** Serialized bytes of an item whose text was cut to nothing. */
function emptiedBytes(slot: Kept): number {
  return `{"role":"${slot.item.role}","text":""}`.length;
}

function sumOf(kept: readonly Kept[], measure: (slot: Kept) => number): number {
  let sum = 0;
  for (const slot of kept) sum += measure(slot);
  return sum;
}

interface Victim {
  slot: Kept;
  /** Position among the kept items: ties go to the first. */
  index: number;
  textBytes: number;
}

/**
 * The kept items by current text size, largest first and the first on ties;
 * items whose text is empty are never offered. A binary heap, so choosing
 * the next victim costs O(log n) instead of a scan of every kept item.
 */
class VictimQueue {
  private readonly heap: Victim[] = [];

  constructor(kept: readonly Kept[]) {
    kept.forEach((slot, index) => this.push(slot, index));
  }

  push(slot: Kept, index: number): void {
    const textBytes = utf8Length(slot.text);
    if (textBytes === 0) return;
    this.heap.push({ slot, index, textBytes });
    let child = this.heap.length - 1;
    while (child > 0) {
      const parent = (child - 1) >> 1;
      if (!this.before(child, parent)) break;
      this.swap(child, parent);
      child = parent;
    }
  }

  pop(): Victim | undefined {
    const top = this.heap[0];
    const last = this.heap.pop();
    if (top === undefined || last === undefined || top === last) return top;
    this.heap[0] = last;
    let parent = 0;
    for (;;) {
      const left = 2 * parent + 1;
      const right = left + 1;
      let first = parent;
      if (left < this.heap.length && this.before(left, first)) first = left;
      if (right < this.heap.length && this.before(right, first)) first = right;
      if (first === parent) return top;
      this.swap(parent, first);
      parent = first;
    }
  }

  private before(a: number, b: number): boolean {
    const x = this.heap[a]!;
    const y = this.heap[b]!;
    return x.textBytes > y.textBytes || (x.textBytes === y.textBytes && x.index < y.index);
  }

  private swap(a: number, b: number): void {
    [this.heap[a], this.heap[b]] = [this.heap[b]!, this.heap[a]!];
  }
}

/** Head/tail cut of an original text keeping `keepBytes` (head takes the larger half), then the notice. */
export function cutText(original: string, originalBytes: number, keepBytes: number): { text: string; omitted: number } {
  const head = utf8Prefix(original, Math.ceil(keepBytes / 2));
  const tail = utf8Suffix(original, Math.floor(keepBytes / 2));
  const omitted = originalBytes - head.bytes - tail.bytes;
  const text = toWellFormed(original.slice(0, head.end)) + toWellFormed(original.slice(tail.start)) + omissionNotice(omitted);
  return { text, omitted };
}

/**
 * A cut of `original` keeping `keepBytes` around `span` (its whole when it
 * fits, centred, the rest of the room to the side that has text), with a
 * notice for each side cut off: what an excerpt does to the one message it
 * cannot carry whole, so the phrase it was asked for survives the cut.
 */
function cutAround(original: string, originalBytes: number, keepBytes: number, span: TextSpan): { text: string; omitted: number } {
  const before = original.slice(0, span.start);
  const from = original.slice(span.start);
  const beforeBytes = utf8Length(before);
  const spanBytes = utf8Length(original.slice(span.start, span.end));
  // Half the room beyond the span goes before it, unless the text after it is shorter than its half.
  const wanted = Math.max(Math.floor((keepBytes - spanBytes) / 2), keepBytes - (originalBytes - beforeBytes));
  const head = utf8Suffix(before, Math.min(beforeBytes, Math.max(0, wanted)));
  const tail = utf8Prefix(from, keepBytes - head.bytes);
  const droppedBefore = beforeBytes - head.bytes;
  const droppedAfter = originalBytes - beforeBytes - tail.bytes;
  const text =
    (droppedBefore > 0 ? leadingOmissionNotice(droppedBefore) : '') +
    toWellFormed(before.slice(head.start) + from.slice(0, tail.end)) +
    (droppedAfter > 0 ? omissionNotice(droppedAfter) : '');
  return { text, omitted: droppedBefore + droppedAfter };
}

/**
 * The cut of an item's original text (head and tail, or around an
 * excerpt's span) keeping the most original bytes whose own UTF-8 length
 * (notices included) is at most `target`; the empty text when not even the
 * bare notice fits.
 */
function cutToBytes(slot: Kept, target: number): { kept: Kept; omitted: number } {
  const { item, focus } = slot;
  const originalBytes = utf8Length(item.text);
  const attempt = (keepBytes: number) =>
    focus === undefined ? cutText(item.text, originalBytes, keepBytes) : cutAround(item.text, originalBytes, keepBytes, focus);
  let best: { text: string; omitted: number } = { text: '', omitted: originalBytes };
  let low = 0;
  let high = Math.min(originalBytes - 1, target);
  while (low <= high) {
    const middle = low + Math.floor((high - low) / 2);
    const candidate = attempt(middle);
    if (utf8Length(candidate.text) <= target) {
      best = candidate;
      low = middle + 1;
    } else high = middle - 1;
  }
  return { kept: serialize(item, best.text, best.omitted), omitted: best.omitted };
}
