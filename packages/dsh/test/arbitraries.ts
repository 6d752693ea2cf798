/**
 * fast-check arbitraries for the dsh suites: hostile text, source sessions
 * (see `sources.ts`), references and mention soup.
 */
import fc from 'fast-check';
import { formatSessionReferenceMention } from '@sessref/core';
import type { AssistantBlockSpec, SourceSpec, SourceStep, ToolSpec } from './sources';

/** Fragments that break naive escaping, framing, mention parsing and UTF-8 arithmetic. */
export const HOSTILE_FRAGMENTS = [
  '<',
  '>',
  '<b>',
  '<referenced-sessions>',
  '</referenced-sessions>',
  '\\u003c',
  '"',
  "'",
  '\\',
  '\n',
  '\r\n',
  '\t',
  '\u0000',
  '\u2028',
  '\u00a0',
  'é',
  '€',
  '…',
  '😀',
  '👩‍💻',
  '\ud800',
  '\udbff',
  '\udc00',
  '\udfff',
  '@[',
  '](',
  ')',
  'dsh-session:',
  '[… omitted 12 UTF-8 bytes …]',
] as const;

/** Any single UTF-16 code unit, lone surrogates included. */
const codeUnit = fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code));
/** Any single code point, astral ones as surrogate pairs. */
const codePoint = fc.string({ unit: 'binary', minLength: 1, maxLength: 1 });

/** One piece of hostile text. */
export const hostileChar: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...HOSTILE_FRAGMENTS) },
  { weight: 3, arbitrary: fc.constantFrom('a', 'b', 'x', ' ', '.', '0') },
  { weight: 1, arbitrary: codeUnit },
  { weight: 1, arbitrary: codePoint },
);

/** Short hostile text (may be empty). */
export function hostileText(maxLength = 24): fc.Arbitrary<string> {
  return fc.string({ unit: hostileChar, maxLength });
}

/**
 * Message text: usually short, sometimes a long repetition, so both tiny and
 * large budgets have something to drop and to cut.
 */
const messageText: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: hostileText(40) },
  {
    weight: 2,
    arbitrary: fc.tuple(hostileText(6), fc.integer({ min: 1, max: 400 }), hostileText(6)).map(([unit, count, end]) => unit.repeat(count) + end),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.constantFrom('a', 'é', '€', '😀', '<', '\ud800', 'ab<"\\'), fc.integer({ min: 1000, max: 20_000 })).map(
      ([unit, count]) => unit.repeat(count),
    ),
  },
);

const toolSpec: fc.Arbitrary<ToolSpec> = fc.record({
  name: fc.constantFrom('ls', 'read', 'bash'),
  result: hostileText(30),
  isError: fc.boolean(),
});

const assistantBlock: fc.Arbitrary<AssistantBlockSpec> = fc.oneof(
  { weight: 3, arbitrary: messageText.map((text) => ({ type: 'text' as const, text })) },
  { weight: 1, arbitrary: hostileText().map((text) => ({ type: 'reasoning' as const, text })) },
);

/** One step of a source conversation. */
const sourceStep: fc.Arbitrary<SourceStep> = fc.oneof(
  { weight: 5, arbitrary: fc.array(messageText, { maxLength: 3 }).map((blocks) => ({ kind: 'user' as const, blocks })) },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('assistant' as const),
      blocks: fc.array(assistantBlock, { maxLength: 3 }),
      tools: fc.array(toolSpec, { maxLength: 2 }),
      interrupted: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('injected' as const), text: messageText, plugin: fc.constantFrom('file-watch', 'memory') }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('reference-context' as const), text: messageText }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'end-turn' as const }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('compact' as const),
      summary: messageText,
      retain: fc.nat({ max: 4 }),
      framed: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('title' as const), title: hostileText(16) }) },
);

/** Working directories sources and targets are drawn from (`undefined`: none recorded). */
const CWDS = ['/proj', '/other', '/Proj/ẞ', undefined] as const;
export const cwd = fc.constantFrom(...CWDS);

/** A source session's id suffix: usually plain, sometimes hostile. */
export const idSuffix: fc.Arbitrary<string> = fc.oneof({ weight: 3, arbitrary: fc.constantFrom('', 'x', 'PROJ') }, { weight: 1, arbitrary: hostileText(6) });

/** A source session without its id (ids are assigned per run so they never collide). */
export type SourceBody = Omit<SourceSpec, 'id'> & { idSuffix: string };

function bodyOf(steps: fc.Arbitrary<SourceStep[]>): fc.Arbitrary<SourceBody> {
  return fc.record(
    { idSuffix, cwd, createdAt: fc.integer({ min: 1, max: 5 }), steps },
    { requiredKeys: ['idSuffix', 'createdAt', 'steps'] },
  );
}

/** Any source session. */
export const sourceBody: fc.Arbitrary<SourceBody> = bodyOf(fc.array(sourceStep, { maxLength: 10 }));

/** Text that is expensive to serialize: escapes, multi-byte and astral characters, lone surrogates. */
const denseText: fc.Arbitrary<string> = fc.string({
  unit: fc.oneof(fc.constantFrom('a', '<', '"', '\\', '\n', '\u0000', 'é', '€', '😀', '\ud800', '\udc00'), hostileChar),
  maxLength: 300,
});

const conversationText = fc.oneof(denseText, messageText);
const userStep = conversationText.map((text): SourceStep => ({ kind: 'user', blocks: [text] }));
const assistantStep = conversationText.map((text): SourceStep => ({ kind: 'assistant', blocks: [{ type: 'text', text }], tools: [], interrupted: false }));
const compactStep = fc.record({ kind: fc.constant('compact' as const), summary: conversationText, retain: fc.nat({ max: 2 }), framed: fc.boolean() });

/**
 * A source made of conversation only: direct prompts, answers and
 * compactions, texts of every density. Half of them end in a checkpoint and a
 * newest message, the two items retention may never drop, so both get cut.
 */
export const conversationBody: fc.Arbitrary<SourceBody> = bodyOf(
  fc.oneof(
    fc.array(fc.oneof({ weight: 3, arbitrary: userStep }, { weight: 3, arbitrary: assistantStep }, { weight: 1, arbitrary: compactStep }), {
      minLength: 1,
      maxLength: 6,
    }),
    fc.tuple(fc.array(userStep, { minLength: 1, maxLength: 2 }), compactStep, fc.array(fc.oneof(userStep, assistantStep), { minLength: 1, maxLength: 2 })).map(
      ([before, checkpoint, after]) => [...before, checkpoint, ...after],
    ),
  ),
);

/** Which session a reference points at. */
type ReferencePick = { kind: 'source'; index: number } | { kind: 'self' } | { kind: 'missing' };

/** A reference of a generated message: a pick plus an optional label. */
export interface ReferenceSpec {
  pick: ReferencePick;
  label?: string;
}

export const referenceSpec: fc.Arbitrary<ReferenceSpec> = fc.record(
  {
    pick: fc.oneof(
      { weight: 8, arbitrary: fc.nat({ max: 2 }).map((index) => ({ kind: 'source' as const, index })) },
      { weight: 1, arbitrary: fc.constant({ kind: 'self' as const }) },
      { weight: 1, arbitrary: fc.constant({ kind: 'missing' as const }) },
    ),
    label: hostileText(12),
  },
  { requiredKeys: ['pick'] },
);

/** Snapshot budgets from "nothing fits" to "everything fits". */
export const referenceBudget: fc.Arbitrary<number> = fc.oneof(
  fc.integer({ min: 50, max: 400 }),
  fc.integer({ min: 400, max: 4_000 }),
  fc.integer({ min: 4_000, max: 100_000 }),
);

// ---------------------------------------------------------------------------
// Mentions

/** Fragments of mention syntax, valid payloads, escapes and whitespace of every kind. */
const MENTION_FRAGMENTS = [
  '@',
  '@[',
  '[',
  ']',
  '\\]',
  '\\',
  '\\\\',
  '(',
  ')',
  '](',
  'dsh-session:',
  '(dsh-session:',
  'ImEi', // "a"
  'IiI', // ""
  'ImFiYyI', // "abc"
  'ImEiCg', // "a" + newline: decodes, but is not canonical
  'ImEi=',
  'AAAA',
  '!!!',
  '-_',
  ' ',
  '\t',
  '\n',
  '\r',
  '\u000b',
  '\u000c',
  '\u00a0',
  '\u1680',
  '\u2000',
  '\u200a',
  '\u200b',
  '\u2028',
  '\u2029',
  '\u202f',
  '\u205f',
  '\u3000',
  '\ufeff',
  '\u0085',
  'label',
  'é',
  '😀',
  '\ud800',
] as const;

export const mentionSoup: fc.Arbitrary<string> = fc.string({
  unit: fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...MENTION_FRAGMENTS) },
    {
      weight: 2,
      arbitrary: fc.record({ sessionId: hostileText(6), label: fc.option(hostileText(6), { nil: undefined }) }).map((reference) =>
        formatSessionReferenceMention({ sessionId: reference.sessionId, ...(reference.label === undefined ? {} : { label: reference.label }) }),
      ),
    },
    { weight: 2, arbitrary: hostileChar },
  ),
  maxLength: 30,
});

/** One prompt of a pre-step batch: the scenario's mentions, mention soup, or the mentions sent by a plugin. */
export type PromptSpec = { kind: 'mentions' } | { kind: 'text'; text: string } | { kind: 'plugin' };

export const promptSpec: fc.Arbitrary<PromptSpec> = fc.oneof(
  { weight: 3, arbitrary: fc.constant({ kind: 'mentions' as const }) },
  { weight: 2, arbitrary: mentionSoup.map((text) => ({ kind: 'text' as const, text })) },
  { weight: 1, arbitrary: fc.constant({ kind: 'plugin' as const }) },
);
