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
}

/** A source fitted to its budget. `json` is the exact serialized data object; `bytes` its UTF-8 length. */
export interface RetainedReference {
  data: ReferencedSessionData;
  json: string;
  bytes: number;
  stats: ReferenceRetentionStats;
}

/** The notice that replaces the middle of a cut message. */
export function omissionNotice(omittedBytes: number): string {
  return `\n[… omitted ${omittedBytes} UTF-8 bytes …]`;
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
}

/**
 * Fit one source into `maxBytes`, or `undefined` when even its fixed fields
 * (or the messages that cannot be dropped, cut to nothing) do not fit.
 *
 * 1. Drop the oldest items that are neither checkpoints nor the newest item.
 * 2. Cut the largest remaining item to the most head/tail bytes that fit.
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

  const newest = items.length - 1;
  const mandatory = items.map((item, index) => item.checkpoint || index === newest);
  const slots: (Kept | undefined)[] = items.map((item, index) => (mandatory[index] ? serialize(item, item.text) : undefined));
  let keptCount = mandatory.filter(Boolean).length;
  let total = fixedBytes + Math.max(0, keptCount - 1);
  for (const slot of slots) total += slot?.bytes ?? 0;

  // Step 1: the kept droppable items are the longest suffix that still fits.
  let omittedMessages = 0;
  let omittedBytes = 0;
  let dropping = total > maxBytes;
  for (let index = newest - 1; index >= 0; index--) {
    if (mandatory[index]) continue;
    const item = items[index]!;
    if (!dropping) {
      const kept = serialize(item, item.text);
      if (total + kept.bytes + 1 <= maxBytes) {
        slots[index] = kept;
        total += kept.bytes + 1;
        keptCount++;
        continue;
      }
      dropping = true;
    }
    omittedMessages++;
    omittedBytes += utf8Length(item.text);
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
      const cut = cutToBytes(victim.slot.item, target);
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
  };
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
 * The head/tail cut of an item's original text keeping the most original
 * bytes whose own UTF-8 length (notice included) is at most `target`; the
 * empty text when not even the bare notice fits.
 */
function cutToBytes(item: ProjectedItem, target: number): { kept: Kept; omitted: number } {
  const originalBytes = utf8Length(item.text);
  const attempt = (keepBytes: number) => cutText(item.text, originalBytes, keepBytes);
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
