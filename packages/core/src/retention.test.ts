import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { anyString, hasLoneSurrogate } from '../test/arbitraries.js';
import type { ProjectedItem } from './projection.js';
import { cutText, omissionNotice, retainReference, type RetainedReference, type RetentionInput } from './retention.js';
import { stringifyTagSafeJson } from './serialization.js';
import type { ReferencedConversationItem, ReferencedSessionData } from './types.js';
import { utf8Length } from './utf8.js';

// ---------------------------------------------------------------------------
// Oracle: an independent, deliberately naive model of the sizes and cuts.

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const bytesOf = (text: string) => encoder.encode(text).length;
/** What a UTF-8 round trip makes of `text` (lone surrogates become U+FFFD). */
const wellFormed = (text: string) => decoder.decode(encoder.encode(text));

function dataOf(input: RetentionInput, conversation: readonly ReferencedConversationItem[]): ReferencedSessionData {
  return { sessionId: input.sessionId, label: input.label, cwd: input.cwd, capturedThroughSeq: input.capturedThroughSeq, conversation: [...conversation] };
}

const asConversation = (items: readonly ProjectedItem[]) => items.map(({ role, text }) => ({ role, text }));

/** UTF-8 size of the serialized data object holding `items`. */
function sizeWith(input: RetentionInput, items: readonly ReferencedConversationItem[]): number {
  return bytesOf(stringifyTagSafeJson(dataOf(input, items)));
}

/** Head (at most `ceil(keep / 2)` bytes) and tail (at most `floor(keep / 2)`), whole code points only. */
function oracleCut(original: string, keep: number): { text: string; retained: number } {
  const codePoints = [...original];
  let head = '';
  let headBytes = 0;
  for (const point of codePoints) {
    if (headBytes + bytesOf(point) > Math.ceil(keep / 2)) break;
    head += point;
    headBytes += bytesOf(point);
  }
  let tail = '';
  let tailBytes = 0;
  for (const point of codePoints.reverse()) {
    if (tailBytes + bytesOf(point) > Math.floor(keep / 2)) break;
    tail = point + tail;
    tailBytes += bytesOf(point);
  }
  const retained = headBytes + tailBytes;
  return { text: wellFormed(head) + wellFormed(tail) + omissionNotice(bytesOf(original) - retained), retained };
}

const NOTICE = /\n\[… omitted (\d+) UTF-8 bytes …\]$/;

/**
 * Check that `text` is a head/tail cut of `original` followed by the notice,
 * or the empty text when not even the bare notice fitted, and return how many
 * original bytes it retained.
 */
function checkCut(original: string, text: string): { omitted: number; retained: number } {
  if (text === '') return { omitted: bytesOf(original), retained: 0 };
  const notice = NOTICE.exec(text);
  expect(notice, `a cut text ends with the omission notice: ${JSON.stringify(text)}`).not.toBeNull();
  const omitted = Number(notice![1]);
  const retained = bytesOf(original) - omitted;
  expect(omitted).toBeGreaterThan(0);
  expect(retained).toBeGreaterThanOrEqual(0);
  // Some keep budget K produced it; whole code points only lose up to 3 bytes on each side, so K is in [retained, retained + 6].
  const producedBy = [0, 1, 2, 3, 4, 5, 6].some((slack) => {
    const cut = oracleCut(original, retained + slack);
    return cut.retained === retained && cut.text === text;
  });
  expect(producedBy, `a head/tail cut of ${JSON.stringify(original)}: ${JSON.stringify(text)}`).toBe(true);
  expect(hasLoneSurrogate(text)).toBe(false);
  return { omitted, retained };
}

/** The best cut of `original` whose own text is at most `target` UTF-8 bytes: the most original bytes kept, else the empty text. */
function bestCutWithin(original: string, target: number): { text: string; omitted: number } {
  // Scanning down from the largest keep budget: the first that fits keeps the most bytes.
  for (let keep = Math.min(bytesOf(original) - 1, target); keep >= 0; keep--) {
    const cut = oracleCut(original, keep);
    if (bytesOf(cut.text) <= target) return { text: cut.text, omitted: bytesOf(original) - cut.retained };
  }
  return { text: '', omitted: bytesOf(original) };
}

/**
 * The contract's retention, step by step and re-measuring everything each time:
 * (1) while over budget, remove the oldest item that is neither a checkpoint
 * nor the newest; (2) while still over, take the item whose current text is
 * largest (the first on ties) and cut its original text to the largest cut
 * that sheds the overflow; (3) fail when no text is left to cut.
 */
function modelRetention(input: RetentionInput) {
  const kept = input.items.map((item) => ({ ...item, current: item.text, omitted: 0 }));
  const size = () => sizeWith(input, kept.map(({ role, current }) => ({ role, text: current })));
  let removedMessages = 0;
  let removedBytes = 0;
  while (size() > input.maxBytes) {
    const oldest = kept.findIndex((item, index) => !item.checkpoint && index !== kept.length - 1);
    if (oldest < 0) break;
    removedMessages++;
    removedBytes += bytesOf(kept.splice(oldest, 1)[0]!.text);
  }
  while (size() > input.maxBytes) {
    let victim: (typeof kept)[number] | undefined;
    for (const item of kept) if (bytesOf(item.current) > (victim === undefined ? 0 : bytesOf(victim.current))) victim = item;
    if (victim === undefined) return undefined;
    const cut = bestCutWithin(victim.text, bytesOf(victim.current) - (size() - input.maxBytes));
    victim.current = cut.text;
    victim.omitted = cut.omitted;
  }
  return {
    conversation: kept.map(({ role, current }) => ({ role, text: current })),
    omittedMessages: removedMessages,
    omittedBytes: removedBytes + kept.reduce((sum, item) => sum + item.omitted, 0),
  };
}

/** Every rule of the contract's retention, checked against the naive model. */
function checkRetention(input: RetentionInput, result: RetainedReference | undefined): void {
  const { items, maxBytes } = input;
  const newest = items.length - 1;
  const droppable = items.flatMap((item, index) => (item.checkpoint || index === newest ? [] : [index]));
  const mandatory = items.filter((item, index) => item.checkpoint || index === newest);
  const model = modelRetention(input);

  // A failure exactly when not even the checkpoints and the newest item, every text emptied, fit.
  const smallest = sizeWith(input, mandatory.map((item) => ({ role: item.role, text: '' })));
  expect(result === undefined).toBe(smallest > maxBytes);
  expect(result === undefined).toBe(model === undefined);
  if (result === undefined || model === undefined) return;

  const { data, json, bytes, stats } = result;
  // The serialized object: exact size, within budget, tag-safe, and the very data returned.
  expect(bytes).toBe(utf8Length(json));
  expect(bytes).toBe(bytesOf(json));
  expect(bytes).toBeLessThanOrEqual(maxBytes);
  expect(json).not.toContain('<');
  expect(JSON.parse(json)).toStrictEqual(data);
  expect(json).toBe(stringifyTagSafeJson(data));
  expect(Object.keys(data)).toEqual(['sessionId', 'label', 'cwd', 'capturedThroughSeq', 'conversation']);
  expect(dataOf(input, [])).toEqual({ ...data, conversation: [] });

  // Exactly what the step-by-step model keeps and cuts.
  expect(data.conversation).toStrictEqual(model.conversation);
  expect(stats.omittedMessages).toBe(model.omittedMessages);
  expect(stats.omittedBytes).toBe(model.omittedBytes);

  // Removal: exactly the oldest droppable items; checkpoints and the newest item always stay, in order.
  const removed = droppable.slice(0, stats.omittedMessages);
  const keptIndices = items.map((_item, index) => index).filter((index) => !removed.includes(index));
  expect(stats.omittedMessages).toBeLessThanOrEqual(droppable.length);
  expect(data.conversation).toHaveLength(keptIndices.length);
  expect(stats).toMatchObject({
    compacted: items.some((item) => item.checkpoint),
    originalMessages: items.length,
    retainedMessages: keptIndices.length,
    omittedMessages: items.length - keptIndices.length,
  });
  if (removed.length > 0) {
    // Keeping the newest removed item instead would not have fit, even uncut.
    const withOneMore = items.filter((_item, index) => !removed.slice(0, -1).includes(index));
    expect(sizeWith(input, asConversation(withOneMore))).toBeGreaterThan(maxBytes);
  }

  // Every kept item is its original, or a head/tail cut of it; the omitted bytes add up exactly.
  let omittedBytes = removed.reduce((sum, index) => sum + bytesOf(items[index]!.text), 0);
  let cuts = 0;
  keptIndices.forEach((index, position) => {
    const original = items[index]!;
    const kept = data.conversation[position]!;
    expect(kept.role).toBe(original.role);
    if (kept.text === original.text) return;
    omittedBytes += checkCut(original.text, kept.text).omitted;
    cuts++;
  });
  expect(stats.omittedBytes).toBe(omittedBytes);
  expect(stats.truncated).toBe(removed.length > 0 || cuts > 0);
  // Cutting starts only once every droppable item is gone.
  if (cuts > 0) expect(removed).toEqual(droppable);
}

// ---------------------------------------------------------------------------
// Generators.

const shortText = anyString({ minLength: 1, maxLength: 40 });
const longText = fc
  .tuple(anyString({ minLength: 1, maxLength: 8 }), fc.integer({ min: 20, max: 600 }))
  .map(([chunk, times]) => chunk.repeat(times));
const itemText = fc.oneof({ arbitrary: shortText, weight: 2 }, { arbitrary: longText, weight: 1 });

const item: fc.Arbitrary<ProjectedItem> = fc.oneof(
  { arbitrary: fc.record({ role: fc.constantFrom('user' as const, 'assistant' as const), text: itemText, checkpoint: fc.constant(false) }), weight: 4 },
  { arbitrary: fc.record({ role: fc.constant('user' as const), text: itemText, checkpoint: fc.constant(true) }), weight: 2 },
);

const source = fc.record({
  sessionId: anyString({ maxLength: 12 }),
  label: anyString({ maxLength: 12 }),
  cwd: fc.option(anyString({ maxLength: 12 }), { nil: null }),
  capturedThroughSeq: fc.option(fc.nat(), { nil: null }),
  items: fc.array(item, { maxLength: 12 }),
});

type Source = Omit<RetentionInput, 'maxBytes'>;
const fullSize = (input: Source) => sizeWith({ ...input, maxBytes: 0 }, asConversation(input.items));
const mandatoryOf = (input: Source) => input.items.filter((entry, index) => entry.checkpoint || index === input.items.length - 1);
/** Size with only the checkpoints and the newest item, uncut. */
const mandatorySize = (input: Source) => sizeWith({ ...input, maxBytes: 0 }, asConversation(mandatoryOf(input)));
/** Size with only the checkpoints and the newest item, each text emptied: below it nothing fits. */
const minimalSize = (input: Source) => sizeWith({ ...input, maxBytes: 0 }, mandatoryOf(input).map((entry) => ({ role: entry.role, text: '' })));

const ratio = fc.double({ min: 0, max: 1, noNaN: true });
const between = (low: number, high: number, at: number) => Math.max(0, Math.floor(low + at * (high - low)));

/**
 * Budgets from nothing to more than enough: absolute byte counts, fractions of
 * the full size, the edges where removal stops and where failure starts, and
 * the range where the mandatory items must be cut (one or several of them).
 */
const budget = fc.oneof(
  fc.nat({ max: 400 }).map((bytes) => () => bytes),
  ratio.map((at) => (input: Source) => between(0, fullSize(input) * 1.1, at)),
  fc.integer({ min: -40, max: 40 }).map((delta) => (input: Source) => Math.max(0, fullSize(input) + delta)),
  ratio.map((at) => (input: Source) => between(mandatorySize(input), fullSize(input), at)),
  { arbitrary: ratio.map((at) => (input: Source) => between(minimalSize(input), mandatorySize(input), at)), weight: 2 },
  // Room for a notice (and some kept text) in every mandatory item: cuts that keep a head and a tail.
  {
    arbitrary: ratio.map((at) => (input: Source) => between(minimalSize(input) + 80 * mandatoryOf(input).length, mandatorySize(input), at)),
    weight: 3,
  },
  fc.integer({ min: -20, max: 40 }).map((delta) => (input: Source) => Math.max(0, minimalSize(input) + delta)),
);

const retentionCase = fc.tuple(source, budget).map(([input, pick]): RetentionInput => ({ ...input, maxBytes: pick(input) }));

function textItem(text: string, options: { role?: 'user' | 'assistant'; checkpoint?: boolean } = {}): ProjectedItem {
  return { role: options.role ?? 'user', text, checkpoint: options.checkpoint ?? false };
}

function retentionInput(items: ProjectedItem[], maxBytes: number): RetentionInput {
  return { sessionId: 's', label: 'S', cwd: '/w', capturedThroughSeq: 7, items, maxBytes };
}

// ---------------------------------------------------------------------------

describe('retainReference', () => {
  it('follows every retention rule, for random conversations and budgets', () => {
    fc.assert(
      fc.property(retentionCase, (input) => {
        checkRetention(input, retainReference(input));
      }),
      { numRuns: 400 },
    );
  });

  it('removes and cuts nothing when the budget is large enough', () => {
    fc.assert(
      fc.property(source, fc.nat({ max: 1000 }), (input, spare) => {
        const full = fullSize(input);
        const result = retainReference({ ...input, maxBytes: full + spare });
        expect(result).toBeDefined();
        expect(result!.data.conversation).toEqual(asConversation(input.items));
        expect(result!.bytes).toBe(full);
        expect(result!.stats).toEqual({
          compacted: input.items.some((entry) => entry.checkpoint),
          originalMessages: input.items.length,
          retainedMessages: input.items.length,
          omittedMessages: 0,
          omittedBytes: 0,
          truncated: false,
        });
      }),
    );
  });

  it('shortens something as soon as the budget is one byte short', () => {
    fc.assert(
      fc.property(source, (input) => {
        const result = retainReference({ ...input, maxBytes: fullSize(input) - 1 });
        if (result !== undefined) expect(result.stats.truncated).toBe(true);
      }),
    );
  });

  it('fails when the fixed fields alone do not fit, and not before', () => {
    fc.assert(
      fc.property(source, (input) => {
        const fixed = sizeWith({ ...input, maxBytes: 0 }, []);
        expect(retainReference({ ...input, maxBytes: fixed - 1 })).toBeUndefined();
        expect(retainReference({ ...input, items: [], maxBytes: fixed })?.json).toBe(stringifyTagSafeJson(dataOf({ ...input, maxBytes: 0 }, [])));
      }),
    );
  });

  it('fails when the checkpoints and the newest item do not fit even with their texts emptied', () => {
    const items = [textItem('x'.repeat(500), { checkpoint: true }), textItem('y'.repeat(500), { role: 'assistant' })];
    const emptied = sizeWith(retentionInput([], 0), [{ role: 'user', text: '' }, { role: 'assistant', text: '' }]);
    expect(retainReference(retentionInput(items, emptied - 1))).toBeUndefined();
    expect(retainReference(retentionInput(items, emptied))!.data.conversation).toEqual([
      { role: 'user', text: '' },
      { role: 'assistant', text: '' },
    ]);
  });

  it('removes the oldest droppable items first and keeps checkpoints and the newest item', () => {
    const items = [
      textItem('old question'),
      textItem('old answer', { role: 'assistant' }),
      textItem('summary', { checkpoint: true }),
      textItem('recent question'),
      textItem('recent answer', { role: 'assistant' }),
    ];
    const keep = [items[2]!, items[3]!, items[4]!];
    const input = retentionInput(items, sizeWith(retentionInput([], 0), asConversation(keep)));
    const result = retainReference(input)!;
    expect(result.data.conversation).toEqual(asConversation(keep));
    expect(result.stats).toEqual({
      compacted: true,
      originalMessages: 5,
      retainedMessages: 3,
      omittedMessages: 2,
      omittedBytes: bytesOf('old question') + bytesOf('old answer'),
      truncated: true,
    });
  });

  it('keeps a removed item’s newer neighbours even when an older, smaller item would have fit', () => {
    const items = [textItem('tiny'), textItem('a much longer middle message'), textItem('newest')];
    const input = retentionInput(items, sizeWith(retentionInput([], 0), asConversation([items[0]!, items[2]!])));
    expect(retainReference(input)!.data.conversation).toEqual(asConversation([items[2]!]));
  });

  /** Bytes of the serialized data object of `retentionInput` with no conversation. */
  const FIXED = sizeWith(retentionInput([], 0), []);
  /** Serialized bytes of one item around its text: `{"role":"user","text":""}`. */
  const ITEM = 25;

  it('cuts a single oversized message head and tail, the head taking the larger half', () => {
    const original = 'a'.repeat(500) + 'b'.repeat(500);
    const result = retainReference(retentionInput([textItem(original)], FIXED + ITEM + 156))!;
    // Overflow 844 asks for at most 156 text bytes: 122 kept plus the 34-byte notice. The notice's
    // "\n" costs one more byte of JSON, so that cut is 1 byte over and is redone at 155: 61 + 60 kept.
    expect(result.data.conversation).toEqual([{ role: 'user', text: 'a'.repeat(61) + 'b'.repeat(60) + omissionNotice(879) }]);
    expect(result.stats).toMatchObject({ omittedMessages: 0, omittedBytes: 879, truncated: true });
    expect(result.bytes).toBe(FIXED + ITEM + 156);
  });

  it('cuts the largest current text first, the first on ties, and re-measures after every cut', () => {
    const checkpoint = 'h'.repeat(150) + 't'.repeat(150);
    const newest = 'a'.repeat(150) + 'z'.repeat(150);
    const items = [textItem(checkpoint, { checkpoint: true }), textItem(newest, { role: 'assistant' })];
    const result = retainReference(retentionInput(items, sizeWith(retentionInput([], 0), asConversation(items)) - 100))!;
    // 1st cut: the checkpoint (first of two 300-byte texts) to 200 bytes: 166 kept + notice of 134.
    // That sheds 99 JSON bytes (the notice's "\n" is escaped), so the now largest text, the newest,
    // is cut next, twice: to 299 bytes (which sheds nothing) and then to 298 (265 kept + notice of 35).
    expect(result.data.conversation).toEqual([
      { role: 'user', text: 'h'.repeat(83) + 't'.repeat(83) + omissionNotice(134) },
      { role: 'assistant', text: 'a'.repeat(133) + 'z'.repeat(132) + omissionNotice(35) },
    ]);
    expect(result.stats.omittedBytes).toBe(134 + 35);
  });

  it('empties a text when not even the bare notice fits', () => {
    const result = retainReference(retentionInput([textItem('x'.repeat(100))], FIXED + ITEM + 20))!;
    expect(result.data.conversation).toEqual([{ role: 'user', text: '' }]);
    expect(result.stats).toMatchObject({ retainedMessages: 1, omittedBytes: 100, truncated: true });
  });

  it('never splits a surrogate pair and replaces cut-adjacent lone surrogates', () => {
    const original = '😀'.repeat(100) + '\ud800' + '😀'.repeat(100);
    const input = retentionInput([textItem(original)], sizeWith(retentionInput([], 0), []) + 150);
    const text = retainReference(input)!.data.conversation[0]!.text;
    checkCut(original, text);
    expect(hasLoneSurrogate(text)).toBe(false);
  });

  it('keeps lone surrogates of uncut items exactly, escaped in the JSON', () => {
    const items = [textItem('lone \ud800 high'), textItem('lone \udc00 low', { role: 'assistant' })];
    const result = retainReference(retentionInput(items, 100_000))!;
    expect(result.data.conversation).toEqual(asConversation(items));
    expect(result.json).toContain('\\ud800');
    expect(JSON.parse(result.json)).toStrictEqual(result.data);
  });

  it('counts "<" escapes in the budget', () => {
    const items = [textItem('<'.repeat(100))];
    const input = retentionInput(items, sizeWith(retentionInput([], 0), asConversation(items)));
    const result = retainReference(input)!;
    expect(result.stats.truncated).toBe(false);
    expect(result.bytes).toBe(input.maxBytes);
    expect(retainReference({ ...input, maxBytes: input.maxBytes - 1 })!.stats.truncated).toBe(true);
  });
});

describe('cutText', () => {
  it.each([
    ['abcdefghij', 4, 'abij', 6],
    ['abcdefghij', 5, 'abcij', 5],
    ['abcdefghij', 0, '', 10],
    ['€€€€', 5, '€', 9],
    ['😀😀', 6, '', 8],
    ['😀😀', 7, '😀', 4],
    ['\ud800abcd', 6, '\ufffdbcd', 1],
  ])('cuts %j keeping %i bytes into %j, omitting %i', (original, keep, kept, omitted) => {
    expect(cutText(original, utf8Length(original), keep)).toEqual({ text: kept + omissionNotice(omitted), omitted });
  });

  it('agrees with the naive head/tail model for any text and keep budget', () => {
    fc.assert(
      fc.property(anyString({ maxLength: 40 }), fc.nat({ max: 200 }), (original, keepRequest) => {
        const bytes = bytesOf(original);
        const keep = Math.min(keepRequest, bytes);
        const cut = cutText(original, bytes, keep);
        const expected = oracleCut(original, keep);
        expect(cut.text).toBe(expected.text);
        expect(cut.omitted).toBe(bytes - expected.retained);
      }),
      { numRuns: 300 },
    );
  });
});

describe('omissionNotice', () => {
  it('states the exact number of omitted UTF-8 bytes', () => {
    expect(omissionNotice(1234)).toBe('\n[… omitted 1234 UTF-8 bytes …]');
  });
});

describe('linear work in every shape', () => {
  /** UTF-16 units that go through UTF-8 measurement or JSON serialization while `run` runs. */
  function workUnits(run: () => void): number {
    const { encodeInto } = TextEncoder.prototype;
    const { stringify } = JSON;
    let units = 0;
    TextEncoder.prototype.encodeInto = function (this: TextEncoder, source: string, destination: Uint8Array) {
      units += source.length;
      return encodeInto.call(this, source, destination);
    };
    JSON.stringify = ((value: unknown, ...rest: []) => {
      if (typeof value === 'string') units += value.length;
      return stringify(value, ...rest);
    }) as typeof JSON.stringify;
    try {
      run();
    } finally {
      TextEncoder.prototype.encodeInto = encodeInto;
      JSON.stringify = stringify;
    }
    return units;
  }

  /** `count` compaction checkpoints of 100 ASCII bytes each (partial compactions), then the newest message. */
  function checkpoints(count: number, bytesPerItem: number): RetentionInput {
    const items: ProjectedItem[] = Array.from({ length: count }, (_, index) => ({
      role: 'user',
      text: `${index}`.padEnd(100, 'x'),
      checkpoint: true,
    }));
    items.push({ role: 'assistant', text: 'latest'.padEnd(100, 'y'), checkpoint: false });
    return { sessionId: 'source', label: 'Source', cwd: null, capturedThroughSeq: count, items, maxBytes: 200 + bytesPerItem * count };
  }

  // 26 bytes: an emptied item and its comma; 126: an item as it is.
  it.each([
    ['fail at once when even emptied texts cannot fit', 20, 'fails'],
    ['empty most checkpoints one after the other', 40, 'fits'],
    ['cut every checkpoint a little', 110, 'fits'],
  ] as const)('thousands of checkpoints: %s, in work linear in their count', (_name, bytesPerItem, outcome) => {
    const measure = (count: number) => {
      let result: RetainedReference | undefined;
      const units = workUnits(() => (result = retainReference(checkpoints(count, bytesPerItem))));
      expect(result === undefined ? 'fails' : 'fits').toBe(outcome);
      return units;
    };
    const small = measure(1000);
    const large = measure(8000);
    // 8x the checkpoints: linear work is about 8x (a heap adds a log factor to choosing victims, not to measuring text).
    expect(large / small).toBeLessThanOrEqual(10);
    expect(large).toBeLessThanOrEqual(20 * 8000 * 100);
  });
});
