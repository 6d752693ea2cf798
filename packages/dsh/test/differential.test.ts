/**
 * Our plugin against the official `@deepseek-ai/dsh-session-reference`
 * (used strictly as a black box) over generated sessions, references,
 * budgets, mention text and candidate queries.
 */
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import type { ContentBlock } from '@deepseek-ai/dsh-llm';
import type { SessionId } from '@deepseek-ai/dsh-session';
import * as oracle from '@deepseek-ai/dsh-session-reference';
import * as ours from '@sessref/dsh';
import {
  HOSTILE_FRAGMENTS,
  conversationBody,
  cwd,
  hostileText,
  idSuffix,
  mentionSoup,
  promptSpec,
  referenceBudget,
  referenceSpec,
  sourceBody,
  type ReferenceSpec,
  type SourceBody,
} from './arbitraries';
import { candidatesOutcome, failTitleReads, outcomeOf, prepareOutcome, preStepOutcome, remoteOutcome, twoSides, type WorldSpec } from './differential';
import { userPrompt } from '@sessref/test-support';
import { writeSource, type SourceSpec } from './sources';
import { useScratch } from './support';

const scratch = useScratch();

const TARGET_ID = 'target';
const MISSING_ID = 'missing-session';

/** `true` about once in `n` runs. */
const sometimes = (n: number) => fc.oneof({ weight: n - 1, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) });

/** A generated scenario: a target, 1–3 sources, 1–3 references and a configuration. */
function scenarioOf(sources: fc.Arbitrary<SourceBody[]>, maxReferenceBytes: fc.Arbitrary<number>) {
  return fc.record({
    targetCwd: cwd,
    sources,
    references: fc.array(referenceSpec, { minLength: 1, maxLength: 3 }),
    before: hostileText(12),
    between: hostileText(6),
    batch: fc.array(promptSpec, { minLength: 1, maxLength: 4 }),
    maxReferences: fc.integer({ min: 1, max: 3 }),
    maxReferenceBytes,
    /** Run with an already aborted signal. */
    aborted: sometimes(8),
  });
}
type Scenario = ReturnType<typeof scenarioOf> extends fc.Arbitrary<infer T> ? T : never;

/** Everything a session may hold, under every kind of budget. */
const scenario = scenarioOf(fc.array(sourceBody, { minLength: 1, maxLength: 3 }), referenceBudget);

/**
 * Retention at its edges: a few conversation messages (checkpoints included)
 * under budgets around their serialized size, where removal, cutting, re-cutting
 * and the empty cut decide the output.
 */
const retentionScenario = scenarioOf(
  fc.array(conversationBody, { minLength: 1, maxLength: 2 }),
  fc.integer({ min: 60, max: 1_500 }),
);

function sourcesOf(run: Scenario): SourceSpec[] {
  return run.sources.map(({ idSuffix: suffix, ...body }, index) => ({ id: `source-${index}${suffix}`, ...body }));
}

function worldOf(run: Scenario, persisted: boolean): WorldSpec {
  return {
    target: { id: TARGET_ID, createdAt: 10, ...(run.targetCwd === undefined ? {} : { cwd: run.targetCwd }) },
    sources: sourcesOf(run),
    config: { maxReferences: run.maxReferences, maxReferenceBytes: run.maxReferenceBytes },
    persisted,
  };
}

function referencesOf(run: Scenario): { sessionId: SessionId; label?: string }[] {
  const ids = sourcesOf(run).map((source) => source.id);
  const idOf = ({ pick }: ReferenceSpec) =>
    pick.kind === 'source' ? ids[pick.index % ids.length]! : pick.kind === 'self' ? TARGET_ID : MISSING_ID;
  return run.references.map((reference) => ({
    sessionId: idOf(reference) as SessionId,
    ...(reference.label === undefined ? {} : { label: reference.label }),
  }));
}

/**
 * Both implementations, same sessions: `prepare()` on structured references,
 * then the pre-step on a batch of prompts that spell the same references as
 * mentions, hold mention-like soup (valid, invalid or not a mention at all),
 * or come from a plugin.
 */
async function checkScenario(run: Scenario, persisted: boolean): Promise<void> {
  try {
    const [left, right] = await twoSides(scratch, worldOf(run, persisted));
    const references = referencesOf(run);
    const content: ContentBlock[] = [{ type: 'text', text: run.before }];
    const signal = run.aborted ? AbortSignal.abort() : undefined;
    expect(await prepareOutcome(left, content, references, signal)).toEqual(await prepareOutcome(right, content, references, signal));

    const mentions = run.before + references.map((reference) => ours.formatSessionReferenceMention(reference)).join(run.between);
    const batch = run.batch.map((prompt) => {
      switch (prompt.kind) {
        case 'mentions':
          return userPrompt(mentions);
        case 'text':
          return userPrompt(prompt.text);
        case 'plugin':
          return { ...userPrompt(mentions), source: { kind: 'plugin' as const, plugin: 'test-plugin' } };
      }
    });
    const options = signal === undefined ? {} : { signal };
    expect(await preStepOutcome(left, batch, options)).toEqual(await preStepOutcome(right, batch, options));
  } finally {
    await scratch.cleanup();
  }
}

// 6 × 90 live runs, 2 × 40 persisted runs and 3 × 100 retention-edge runs.
const LIVE_BATCHES = [0, 1, 2, 3, 4, 5];
const PERSISTED_BATCHES = [0, 1];
const RETENTION_BATCHES = [0, 1, 2];

describe('prepare and pre-step match the official resolver', () => {
  it.each(LIVE_BATCHES)('live sources, batch %i', async () => {
    await fc.assert(fc.asyncProperty(scenario, (run) => checkScenario(run, false)), { numRuns: 90 });
  });

  it.each(PERSISTED_BATCHES)('persisted-only sources (JSONL), batch %i', async () => {
    await fc.assert(fc.asyncProperty(scenario, (run) => checkScenario(run, true)), { numRuns: 40 });
  });

  it.each(RETENTION_BATCHES)('budgets at the retention edges, batch %i', async () => {
    await fc.assert(fc.asyncProperty(retentionScenario, (run) => checkScenario(run, false)), { numRuns: 100 });
  });
});

// ---------------------------------------------------------------------------
// Mention parsing

describe('mention syntax matches the official resolver', () => {
  it('parseSessionReferenceText', () => {
    fc.assert(
      fc.property(mentionSoup, (text) => {
        expect(outcomeOf(() => ours.parseSessionReferenceText(text))).toEqual(outcomeOf(() => oracle.parseSessionReferenceText(text)));
      }),
      { numRuns: 20_000 },
    );
  });

  it('decodeSessionReferenceUri', () => {
    const uri = fc.oneof(
      mentionSoup.map((text) => `dsh-session:${text}`),
      fc.string({ unit: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_=+/'.split('')), maxLength: 16 }).map(
        (payload) => `dsh-session:${payload}`,
      ),
      hostileText().map((id) => oracle.encodeSessionReferenceUri(id as SessionId)),
      mentionSoup,
    );
    fc.assert(
      fc.property(uri, (text) => {
        expect(outcomeOf(() => ours.decodeSessionReferenceUri(text))).toEqual(outcomeOf(() => oracle.decodeSessionReferenceUri(text)));
      }),
      { numRuns: 20_000 },
    );
  });

  it('encodeSessionReferenceUri and formatSessionReferenceMention', () => {
    fc.assert(
      fc.property(hostileText(), fc.option(hostileText(), { nil: undefined }), (sessionId, label) => {
        const reference = { sessionId: sessionId as SessionId, ...(label === undefined ? {} : { label }) };
        expect(ours.encodeSessionReferenceUri(sessionId)).toBe(oracle.encodeSessionReferenceUri(sessionId as SessionId));
        expect(ours.formatSessionReferenceMention(reference)).toBe(oracle.formatSessionReferenceMention(reference));
      }),
      { numRuns: 5_000 },
    );
  });
});

// ---------------------------------------------------------------------------
// Candidates

/** Case traps for "case-insensitive": characters whose lower/upper forms change length or differ by locale. */
const CASE_TRAPS = ['İ', 'i̇', 'ß', 'ẞ', 'K', 'k', 'ſ', 's', 'Σ', 'ς', 'σ', 'ﬁ', 'FI', 'Ω', 'ω', 'PROJ', 'proj', 'É', 'é'] as const;
const caseText = fc.string({ unit: fc.oneof(fc.constantFrom(...CASE_TRAPS), fc.constantFrom('a', 'B', '-', '/', ' ')), maxLength: 6 });

const candidateWorld = fc.record({
  targetCwd: cwd,
  sessions: fc.array(
    fc.record({
      suffix: fc.oneof(idSuffix, caseText),
      cwd: fc.oneof(cwd, caseText.map((text) => `/${text}`)),
      createdAt: fc.integer({ min: 1, max: 4 }),
      titles: fc.array(fc.oneof(caseText, hostileText(8)), { maxLength: 2 }),
    }),
    { maxLength: 7 },
  ),
  queries: fc.array(fc.oneof(fc.constant(''), caseText, hostileText(3), fc.constantFrom('source', 'SOURCE-1', '/PROJ', '/', 'x')), {
    minLength: 1,
    maxLength: 4,
  }),
  limit: fc.oneof(
    { weight: 4, arbitrary: fc.option(fc.integer({ min: 1, max: 9 }), { nil: undefined }) },
    { weight: 1, arbitrary: fc.constantFrom(0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53) },
  ),
  candidateLimit: fc.integer({ min: 1, max: 6 }),
  /** Sessions whose title read fails (indices into `sessions`). */
  unreadable: fc.array(fc.nat({ max: 6 }), { maxLength: 3 }),
  aborted: sometimes(5),
  persisted: sometimes(4),
});

describe('discovery matches the official resolver', () => {
  it('listCandidates and the Remote face', async () => {
    await fc.assert(
      fc.asyncProperty(candidateWorld, async (world) => {
        try {
          const sources: SourceSpec[] = world.sessions.map((session, index) => ({
            id: `source-${index}${session.suffix}`,
            createdAt: session.createdAt,
            ...(session.cwd === undefined ? {} : { cwd: session.cwd }),
            steps: [{ kind: 'user', blocks: ['hello'] }, ...session.titles.map((title) => ({ kind: 'title' as const, title }))],
          }));
          const [left, right] = await twoSides(scratch, {
            target: { id: TARGET_ID, createdAt: 2, ...(world.targetCwd === undefined ? {} : { cwd: world.targetCwd }) },
            sources,
            config: { candidateLimit: world.candidateLimit },
            persisted: world.persisted,
          });
          const unreadable = new Set(world.unreadable.flatMap((index) => sources[index]?.id ?? []));
          for (const side of [left, right]) failTitleReads(side.host, unreadable);
          const signal = world.aborted ? AbortSignal.abort() : new AbortController().signal;
          for (const query of world.queries) {
            expect(await candidatesOutcome(left, query, world.limit, signal)).toEqual(await candidatesOutcome(right, query, world.limit, signal));
            const remote = await Promise.all([left, right].map((side) => remoteOutcome(side, query, signal)));
            expect(remote[0]).toEqual(remote[1]);
          }
        } finally {
          await scratch.cleanup();
        }
      }),
      { numRuns: 150 },
    );
  });
});

describe('discovery folds case in the host locale, like the official resolver', () => {
  // Emulates a Turkish host: `toLocaleLowerCase()` without a locale folds I to ı and İ to i.
  it.each(['i', 'ı', 'I', 'İ', 'kilim', 'KILIM', 'kılım'])('query %j', async (query) => {
    const toLocaleLowerCase = String.prototype.toLocaleLowerCase;
    const turkish = vi.spyOn(String.prototype, 'toLocaleLowerCase').mockImplementation(function (this: string, locales?: Intl.LocalesArgument) {
      return toLocaleLowerCase.call(this, locales ?? 'tr');
    });
    try {
      const sources = ['KILIM', 'kilim', 'KİLİM', 'kılım'].map((id, index): SourceSpec => ({ id, createdAt: index + 1, steps: [] }));
      const [left, right] = await twoSides(scratch, { target: { id: TARGET_ID, createdAt: 9 }, sources, config: {}, persisted: false });
      const outcome = await candidatesOutcome(left, query, undefined);
      expect(outcome).toEqual(await candidatesOutcome(right, query, undefined));
      expect('candidates' in outcome && outcome.candidates.length).toBeGreaterThan(0);
    } finally {
      turkish.mockRestore();
    }
  });
});

describe('generators', () => {
  it('write hostile text into session logs verbatim', async () => {
    const host = await scratch.host();
    const session = writeSource(host, { id: 'fragments', createdAt: 1, steps: [{ kind: 'user', blocks: [...HOSTILE_FRAGMENTS] }] });
    const [first] = (await host.sessionQuery.readSurface(session.id)).events;
    expect(first?.type === 'user/message' && first.data.content.map((block) => (block.type === 'text' ? block.text : ''))).toEqual([...HOSTILE_FRAGMENTS]);
  });
});
