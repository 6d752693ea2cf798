import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { anyString, hasLoneSurrogate } from '../test/arbitraries.js';
import { expectSessionReferenceError } from '../test/errors.js';
import { assistantMessage, checkpointMessage, userMessage } from '../test/surface.js';
import { MemoryStorage } from '../test/memory-storage.js';
import { formatExcerptSuffix, parseExcerptMentions, selectExcerpt } from './excerpt.js';
import { encodeSessionReferenceUri, formatSessionReferenceMention, parseSessionReferenceText } from './uri.js';
import { plainExcerpt } from './content.js';
import { createSessionReferenceCore } from './facade.js';
import { REFERENCE_EXCERPTS_HEADING } from './omissions.js';
import { fitSnapshot } from './fit.js';
import { projectConversation, type ProjectedItem } from './projection.js';
import type { ExcerptRequest, SurfaceMessage, SurfaceSnapshot } from './types.js';
import { utf8Length } from './utf8.js';

const SOURCE = { sessionId: 'source', label: 'Source' };
const PHRASE = 'Zebra Quartz';

function snapshotOf(messages: readonly SurfaceMessage[]): SurfaceSnapshot {
  return { session: { id: 'source', createdAt: 1, cwd: '/work' }, capturedThroughSeq: messages.length, messages };
}

/** A numbered conversation, alternating user and assistant, each message `size` bytes of ASCII. */
function numbered(count: number, size = 100, plant?: { at: number; text: string }): SurfaceMessage[] {
  return Array.from({ length: count }, (_, index) => {
    const body = index === plant?.at ? plant.text : `message ${index} `.padEnd(size, '.');
    return (index % 2 === 0 ? userMessage : assistantMessage)(body);
  });
}

/** Whether `text` holds `phrase` with any case and any run of whitespace between its words. */
function holdsPhrase(text: string, phrase: string): boolean {
  return new RegExp(phrase.split(' ').join('\\s+'), 'iu').test(text);
}

/** The original text a carried (possibly cut) text kept: the text between the excerpt's notices, or the head and tail cut's head. */
function keptSlices(text: string): string[] {
  return text
    .replace(/^\[… omitted \d+ UTF-8 bytes …\]\n/, '')
    .replace(/\n\[… omitted \d+ UTF-8 bytes …\]$/, '')
    .split('\n[… omitted')
    .filter((slice) => slice !== '');
}

describe('selectExcerpt', () => {
  const items = projectConversation([userMessage('Plan the rollout'), assistantMessage('Retry\n  budget: seven'), userMessage('retry budget again')]);

  it('finds the first message holding the phrase, case-insensitively, any whitespace run matching a space', () => {
    expect(selectExcerpt(items, { around: '  RETRY budget ' })).toEqual({ kind: 'around', index: 1, span: { start: 0, end: 14 } });
  });

  it('finds a phrase copied from a search snippet, which shows controls and format characters as a space', () => {
    const [hidden] = projectConversation([userMessage('the parti\u00adtion\u0007leader moved')]);
    const { snippet } = plainExcerpt(hidden!.text, [], { before: false, after: false });
    expect(snippet).toBe('the parti tion leader moved');
    expect(selectExcerpt([hidden!], { around: snippet })).toEqual({ kind: 'around', index: 0, span: { start: 0, end: hidden!.text.length } });
  });

  it('takes the phrase as literal text', () => {
    const dotted = projectConversation([userMessage('call a.b(c) now'), userMessage('axb c')]);
    expect(selectExcerpt(dotted, { around: 'a.b(c)' })).toEqual({ kind: 'around', index: 0, span: { start: 5, end: 11 } });
  });

  it('turns a message range, counted from 1, into item indices, a range past the end running to the end', () => {
    expect(selectExcerpt(items, { firstMessage: 2, lastMessage: 3 })).toEqual({ kind: 'range', first: 1, last: 2 });
    expect(selectExcerpt(items, { firstMessage: 1, lastMessage: 99 })).toEqual({ kind: 'range', first: 0, last: 2 });
  });

  it('says when the carried text does not hold the phrase, or the range starts past the end', () => {
    expectSessionReferenceError(() => selectExcerpt(items, { around: 'rollback' }), 'SESSION_REFERENCE_EXCERPT_NOT_FOUND');
    expectSessionReferenceError(() => selectExcerpt(items, { firstMessage: 4, lastMessage: 5 }), 'SESSION_REFERENCE_EXCERPT_NOT_FOUND');
    expectSessionReferenceError(() => selectExcerpt(items.slice(0, 1), { firstMessage: 2, lastMessage: 2 }), 'SESSION_REFERENCE_EXCERPT_NOT_FOUND');
  });

  it('refuses a phrase with nothing to search and a malformed range', () => {
    expectSessionReferenceError(() => selectExcerpt(items, { around: ' … ' }), 'SESSION_REFERENCE_INVALID_QUERY');
    expectSessionReferenceError(() => selectExcerpt(items, { around: 'a\0b' }), 'SESSION_REFERENCE_INVALID_QUERY');
    for (const range of [
      { firstMessage: 0, lastMessage: 1 },
      { firstMessage: 3, lastMessage: 2 },
      { firstMessage: 1.5, lastMessage: 2 },
      { firstMessage: '1', lastMessage: 2 },
    ]) {
      expectSessionReferenceError(() => selectExcerpt(items, range as unknown as ExcerptRequest), 'SESSION_REFERENCE_INVALID_EXCERPT');
    }
    expectSessionReferenceError(() => selectExcerpt(items, null as unknown as ExcerptRequest), 'SESSION_REFERENCE_INVALID_EXCERPT');
  });
});

describe('fitSnapshot with an excerpt', () => {
  it('keeps the message holding the phrase and its neighbours on both sides while they fit, and records them', () => {
    const messages = numbered(20, 100, { at: 9, text: `the ${PHRASE} plan`.padEnd(100, '.') });
    const fit = fitSnapshot(SOURCE, snapshotOf(messages), 700, { excerpt: { around: 'zebra quartz' } });
    const kept = fit.retained!.data.conversation.map(({ text }) => text);
    expect(fit.excerpt).toEqual({ around: 'zebra quartz', firstMessage: 8, lastMessage: 11 });
    expect(kept).toEqual(fit.items.slice(7, 11).map(({ text }) => text));
    expect(fit.retained!.stats).toEqual({ compacted: false, originalMessages: 20, retainedMessages: 4, omittedMessages: 16, omittedBytes: 1600, truncated: true });
    expect(fit.retained!.bytes).toBeLessThanOrEqual(700);
  });

  it('leaves a checkpoint outside the excerpt out, unlike the newest-messages rule', () => {
    const messages = [checkpointMessage('summary'), ...numbered(6, 50, { at: 4, text: PHRASE })];
    const fit = fitSnapshot(SOURCE, snapshotOf(messages), 4096, { excerpt: { firstMessage: 4, lastMessage: 6 } });
    expect(fit.retained!.data.conversation.map(({ text }) => text)).toEqual(fit.items.slice(3, 6).map(({ text }) => text));
    expect(fit.excerpt).toEqual({ firstMessage: 4, lastMessage: 6 });
    expect(fit.retained!.stats).toMatchObject({ compacted: true, originalMessages: 7, retainedMessages: 3, omittedMessages: 4, truncated: true });
  });

  it('retains a range as a conversation of its own: its newest messages when it does not fit whole', () => {
    const fit = fitSnapshot(SOURCE, snapshotOf(numbered(30)), 600, { excerpt: { firstMessage: 5, lastMessage: 15 } });
    expect(fit.excerpt?.lastMessage).toBe(15);
    expect(fit.excerpt!.firstMessage).toBeGreaterThan(5);
    expect(fit.retained!.stats.retainedMessages).toBe(fit.excerpt!.lastMessage - fit.excerpt!.firstMessage + 1);
  });

  it('cuts a message too long to carry whole around the phrase, with a notice for each side cut off', () => {
    const long = `${'a'.repeat(5000)} ${PHRASE} ${'z'.repeat(5000)}`;
    const fit = fitSnapshot(SOURCE, snapshotOf([userMessage('before'), assistantMessage(long), userMessage('after')]), 600, { excerpt: { around: PHRASE } });
    const [carried] = fit.retained!.data.conversation;
    expect(fit.retained!.data.conversation).toHaveLength(1);
    expect(carried!.text).toMatch(/^\[… omitted \d+ UTF-8 bytes …\]\na+ Zebra Quartz z+\n\[… omitted \d+ UTF-8 bytes …\]$/);
    expect(fit.retained!.bytes).toBeLessThanOrEqual(600);
    expect(fit.excerpt).toEqual({ around: PHRASE, firstMessage: 2, lastMessage: 2 });
    expect(fit.retained!.stats.omittedBytes).toBe(utf8Length('before') + utf8Length('after') + utf8Length(long) - utf8Length(keptSlices(carried!.text).join('')));
  });

  it('cuts only the side that is cut: a phrase at either end of a long message keeps that end, with no notice there', () => {
    const atEnd = fitSnapshot(SOURCE, snapshotOf([userMessage(`${'a'.repeat(5000)} ${PHRASE}`)]), 400, { excerpt: { around: PHRASE } });
    expect(atEnd.retained!.data.conversation[0]!.text).toMatch(/^\[… omitted \d+ UTF-8 bytes …\]\na+ Zebra Quartz$/);
    const atStart = fitSnapshot(SOURCE, snapshotOf([userMessage(`${PHRASE} ${'z'.repeat(5000)}`)]), 400, { excerpt: { around: PHRASE } });
    expect(atStart.retained!.data.conversation[0]!.text).toMatch(/^Zebra Quartz z+\n\[… omitted \d+ UTF-8 bytes …\]$/);
  });

  it('refuses a malformed request as it is, before any window is chosen', () => {
    expectSessionReferenceError(() => fitSnapshot(SOURCE, snapshotOf(numbered(3)), 4096, { excerpt: { around: '…' } }), 'SESSION_REFERENCE_INVALID_QUERY');
  });

  it('finds the phrase only in what is carried: a redacted credential is not there to be found', () => {
    const key = 'ghp_' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8';
    expectSessionReferenceError(
      () => fitSnapshot(SOURCE, snapshotOf([userMessage(`token ${key}`)]), 4096, { redact: true, excerpt: { around: key } }),
      'SESSION_REFERENCE_EXCERPT_NOT_FOUND',
    );
  });

  it('carries the phrase from the middle of a 4,000-message session, within the budget, where the whole-session snapshot omits it', () => {
    const phrase = 'the retry budget is seven attempts';
    const messages = numbered(4000, 200, { at: 2000, text: `Decision: ${phrase}, agreed with ops.` });
    const maxBytes = 65_536;
    const whole = fitSnapshot(SOURCE, snapshotOf(messages), maxBytes);
    const excerpt = fitSnapshot(SOURCE, snapshotOf(messages), maxBytes, { excerpt: { around: 'Retry budget' } });
    expect(whole.retained!.json).not.toContain(phrase);
    expect(excerpt.retained!.json).toContain(phrase);
    expect(excerpt.retained!.bytes).toBeLessThanOrEqual(maxBytes);
    expect(excerpt.retained!.bytes).toBe(utf8Length(excerpt.retained!.json));
    const { firstMessage, lastMessage } = excerpt.excerpt!;
    // Centred: as many neighbours on each side, give or take the few bytes "assistant" takes over "user".
    const [earlier, later] = [2001 - firstMessage, lastMessage - 2001];
    expect(Math.min(earlier, later)).toBeGreaterThan(100);
    expect(Math.abs(earlier - later)).toBeLessThanOrEqual(2);
    expect(excerpt.retained!.stats.omittedMessages).toBe(4000 - (lastMessage - firstMessage + 1));
  });
});

describe('prepare with an excerpt', () => {
  const storage = new MemoryStorage([
    { id: 'target' },
    { id: 'long', title: 'Long', messages: numbered(400, 100, { at: 200, text: `we chose ${PHRASE} for the cache` }) },
  ]);
  const core = createSessionReferenceCore(storage, { maxReferenceBytes: 2000 });

  it('carries the excerpt, records its first and last message, and tells the model the rest was left out', async () => {
    const { context } = await core.prepare({ id: 'target' }, [], [{ sessionId: 'long', excerpt: { around: 'zebra  quartz' } }]);
    const [entry] = context!.source.references;
    expect(entry).toMatchObject({ sessionId: 'long', label: 'long', originalMessages: 400, truncated: true, inputIndex: 0 });
    expect(entry!.excerpt).toEqual({ around: 'zebra quartz', firstMessage: entry!.excerpt!.firstMessage, lastMessage: entry!.excerpt!.lastMessage });
    expect(entry!.excerpt!.firstMessage).toBeLessThan(201);
    expect(entry!.excerpt!.lastMessage).toBeGreaterThan(201);
    expect(context!.sources[0]!.bytes).toBeLessThanOrEqual(2000);
    expect(context!.text).toContain(`we chose ${PHRASE} for the cache`);
    const notice = context!.text.slice(context!.text.indexOf(`\n\n${REFERENCE_EXCERPTS_HEADING}\n\n`));
    expect(notice).toContain('the rest of that session was left out');
    expect(JSON.parse(notice.split('\n').at(-1)!)).toEqual([{ sessionId: 'long', ...entry!.excerpt, originalMessages: 400 }]);
  });

  it('leaves a whole-session reference as the contract has it: no excerpt in its entry, no notice', async () => {
    const { context } = await core.prepare({ id: 'target' }, [], [{ sessionId: 'long' }]);
    expect(context!.source.references[0]).not.toHaveProperty('excerpt');
    expect(context!.text).not.toContain(REFERENCE_EXCERPTS_HEADING);
    expect(context!.text).not.toContain(PHRASE);
  });

  it('checks an excerpt before reading, and names the session whose text lacks the phrase', async () => {
    const reads = storage.surfaceReads.length;
    await expect(core.prepare({ id: 'target' }, [], [{ sessionId: 'long', excerpt: { firstMessage: 0, lastMessage: 1 } }])).rejects.toMatchObject({
      code: 'SESSION_REFERENCE_INVALID_EXCERPT',
    });
    expect(storage.surfaceReads).toHaveLength(reads);
    await expect(core.prepare({ id: 'target' }, [], [{ sessionId: 'long', excerpt: { around: 'nowhere said' } }])).rejects.toMatchObject({
      code: 'SESSION_REFERENCE_EXCERPT_NOT_FOUND',
      sessionId: 'long',
    });
  });
});

describe('excerpt suffixes after mentions', () => {
  const mention = formatSessionReferenceMention({ sessionId: 'long', label: 'Long [log]' });

  it('reads {around: "…"} and {messages: N-M} right after a mention or bare URI, or after one space, as that excerpt, and leaves the text as written', () => {
    const text = `see ${mention}{around: "retry budget"} and ${encodeSessionReferenceUri('short')} {messages: 3-9}, then ${mention}  {around: "too far"}`;
    const parsed = parseExcerptMentions(text);
    expect(parsed.text).toBe(parseSessionReferenceText(text).text);
    expect(parsed.references).toEqual([
      { sessionId: 'long', label: 'Long [log]', excerpt: { around: 'retry budget' } },
      { sessionId: 'short', label: 'short', excerpt: { firstMessage: 3, lastMessage: 9 } },
      // A suffix must follow the mention right away or after one space.
      { sessionId: 'long', label: 'Long [log]' },
    ]);
  });

  it('writes a range so that it reads back', () => {
    const [reference] = parseExcerptMentions(`${mention}${formatExcerptSuffix({ firstMessage: 12, lastMessage: 40 })}`).references;
    expect(reference!.excerpt).toEqual({ firstMessage: 12, lastMessage: 40 });
  });

  it('asks for nothing with a suffix that is not a JSON string', () => {
    expect(parseExcerptMentions(`${mention}{around: "a\\x"}`).references).toEqual([{ sessionId: 'long', label: 'Long [log]' }]);
  });

  it('writes any phrase so that it reads back, and so that a parser that knows no suffix sees the same mentions and plain text', () => {
    fc.assert(
      // Phrases that spell the scheme too: the suffix must never hold a URI.
      fc.property(fc.oneof(anyString({ maxLength: 40 }), anyString({ maxLength: 12 }).map((tail) => `dsh-session:${tail}`)), anyString({ maxLength: 20 }), (phrase, after) => {
        const text = `${mention}${formatExcerptSuffix({ around: phrase })}${after.replaceAll('dsh-session:', '')}`;
        // What the official parser does with it: the one mention, never an error from the suffix.
        const plain = parseSessionReferenceText(text);
        expect(plain.references).toEqual([{ sessionId: 'long', label: 'Long [log]' }]);
        const [reference] = parseExcerptMentions(text).references;
        expect(reference!.excerpt).toEqual({ around: JSON.parse(JSON.stringify(phrase)) as string });
      }),
    );
  });
});

// ---------------------------------------------------------------------------
// Properties over generated conversations with the phrase planted in one message.

/** Well-formed text (whole code points, any plane), so a lone surrogate in a carried text can only come from a split pair. */
const wellFormedText = (maxLength: number) => fc.string({ unit: 'binary', maxLength });

const itemArbitrary: fc.Arbitrary<ProjectedItem> = fc
  .record({
    role: fc.constantFrom('user' as const, 'assistant' as const),
    text: wellFormedText(300).filter((value) => value !== ''),
    checkpoint: fc.boolean(),
  })
  // A checkpoint is a user-role message.
  .map((item) => (item.checkpoint ? { ...item, role: 'user' as const } : item));

const planted = fc
  .record({
    before: fc.array(itemArbitrary, { maxLength: 12 }),
    after: fc.array(itemArbitrary, { maxLength: 12 }),
    lead: wellFormedText(2000),
    trail: wellFormedText(2000),
    maxBytes: fc.integer({ min: 80, max: 3000 }),
  })
  // The planted message must be the first holding the phrase for the properties to name it.
  .filter(({ before }) => !before.some((item) => holdsPhrase(item.text, PHRASE)));

function surfaceOf(items: readonly ProjectedItem[]): SurfaceMessage[] {
  return items.map((item) => (item.checkpoint ? checkpointMessage : item.role === 'user' ? userMessage : assistantMessage)(item.text));
}

describe('excerpt properties', () => {
  it('stays within the budget, splits no code point, records its first and last message, and carries the phrase when its message fits', () => {
    fc.assert(
      fc.property(planted, ({ before, after, lead, trail, maxBytes }) => {
        const holder: ProjectedItem = { role: 'assistant', text: `${lead} ${PHRASE} ${trail}`, checkpoint: false };
        const items = [...before, holder, ...after];
        const fit = fitSnapshot(SOURCE, snapshotOf(surfaceOf(items)), maxBytes, { excerpt: { around: PHRASE } });
        // The holder alone in the same frame: what the budget must allow for it to be carried whole.
        const alone = fitSnapshot(SOURCE, { ...snapshotOf(surfaceOf([holder])), capturedThroughSeq: items.length }, Number.MAX_SAFE_INTEGER).retained!.bytes;
        if (fit.retained === undefined) {
          // Nothing fits only when not even the bare frame with the emptied message does.
          const emptied = `{"sessionId":"source","label":"Source","cwd":"/work","capturedThroughSeq":${items.length},"conversation":[{"role":"assistant","text":""}]}`;
          expect(maxBytes).toBeLessThan(utf8Length(emptied));
          return;
        }
        const { retained, excerpt } = fit;
        expect(retained.bytes).toBeLessThanOrEqual(maxBytes);
        expect(retained.bytes).toBe(utf8Length(retained.json));
        expect(JSON.parse(retained.json)).toEqual(retained.data);

        // First and last message: a contiguous run of the conversation holding the phrase's message.
        const at = before.length + 1;
        expect(excerpt!.firstMessage).toBeLessThanOrEqual(at);
        expect(excerpt!.lastMessage).toBeGreaterThanOrEqual(at);
        expect(retained.data.conversation.map(({ role }) => role)).toEqual(items.slice(excerpt!.firstMessage - 1, excerpt!.lastMessage).map(({ role }) => role));
        expect(retained.stats.omittedMessages).toBe(items.length - retained.data.conversation.length);

        retained.data.conversation.forEach(({ text }, offset) => {
          const original = items[excerpt!.firstMessage - 1 + offset]!.text;
          expect(hasLoneSurrogate(text)).toBe(false);
          for (const slice of keptSlices(text)) expect(original).toContain(slice);
        });
        if (alone <= maxBytes) expect(retained.data.conversation[at - excerpt!.firstMessage]!.text).toBe(holder.text);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps the phrase whole in a cut message while the budget has room for it and the notices', () => {
    fc.assert(
      fc.property(wellFormedText(3000), wellFormedText(3000), fc.integer({ min: 0, max: 400 }), (lead, trail, room) => {
        const holder = `${lead} ${PHRASE} ${trail}`;
        const frame = utf8Length('{"sessionId":"source","label":"Source","cwd":"/work","capturedThroughSeq":1,"conversation":[{"role":"user","text":""}]}');
        // Two notices of at most 5-digit counts, the phrase, and JSON escapes of at most 6 bytes per byte kept.
        const maxBytes = frame + 2 * 40 + 6 * (PHRASE.length + 2) + room;
        const fit = fitSnapshot(SOURCE, snapshotOf([userMessage(holder)]), maxBytes, { excerpt: { around: PHRASE } });
        expect(fit.retained!.bytes).toBeLessThanOrEqual(maxBytes);
        expect(fit.retained!.data.conversation[0]!.text).toContain(PHRASE);
      }),
      { numRuns: 300 },
    );
  });
});
