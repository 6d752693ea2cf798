/**
 * The `excerpts` option (#34 item 2). Off by default: a mention followed by
 * an excerpt suffix (`{around: "…"}`) is a mention and plain text, and the
 * step enters exactly what the official plugin enters, byte for byte. On:
 * the mention cites the part of the session around the phrase, its entry
 * records which messages, and the context says the rest was left out.
 */
import SessionReferenceResolver, { formatSessionReferenceMention, type Config, type SessionReferenceSource } from '@sessref/dsh';
import { REFERENCE_EXCERPTS_HEADING, formatExcerptSuffix } from '@sessref/core';
import { createSession, makeAgent, runPreStep, userPrompt } from '@sessref/test-support';
import { describe, expect, it } from 'vitest';
import { preStepOutcome, twoSides } from './differential';
import { writeSource, type SourceSpec } from './sources';
import { loadOurs, snapshotJson, textOf, useScratch } from './support';

const scratch = useScratch();
const MIDDLE = 'Decision: the retry budget is seven attempts.';

/** A session of 400 numbered exchanges, the decision said in the middle one. */
const LONG: SourceSpec = {
  id: 'long',
  createdAt: 1,
  steps: Array.from({ length: 200 }, (_, index) => [
    { kind: 'user' as const, blocks: [index === 100 ? MIDDLE : `question ${index} `.padEnd(120, '.')] },
    { kind: 'end-turn' as const },
  ]).flat(),
};
const MESSAGE = `what did we decide? ${formatSessionReferenceMention({ sessionId: 'long', label: 'Long' })}${formatExcerptSuffix({ around: 'retry budget' })}`;
const CONFIG: Config = { maxReferenceBytes: 2048 };

describe('excerpts', () => {
  it('is off by default: the suffix is plain text and the step enters exactly what the official plugin enters', async () => {
    const [ours, oracle] = await twoSides(scratch, { target: { id: 'target', createdAt: 9 }, sources: [LONG], config: CONFIG, persisted: false });
    const batch = [userPrompt(MESSAGE)];
    const mine = await preStepOutcome(ours, batch);
    expect(mine).toEqual(await preStepOutcome(oracle, batch));
    expect(JSON.stringify(mine)).not.toContain(MIDDLE);
  });

  it('on, the mention cites the part around the phrase within the budget, records its messages and says the rest was left out', async () => {
    const host = await scratch.host();
    writeSource(host, LONG);
    await loadOurs(host, { ...CONFIG, excerpts: true });
    const agent = makeAgent(host, createSession(host, { id: 'target', createdAt: 9 }));
    const decision = await runPreStep(host, agent, [userPrompt(MESSAGE)]);
    if (decision.kind !== 'enter') throw new Error('the step was rejected');
    const [readable, context] = decision.messages;
    expect(textOf(readable!)).toBe('what did we decide? @Long{around: "retry budget"}');
    const [entry] = (context!.source as SessionReferenceSource).references;
    expect(entry).toMatchObject({ sessionId: 'long', originalMessages: 200, truncated: true, excerpt: { around: 'retry budget' } });
    expect(entry!.excerpt!.firstMessage).toBeLessThan(101);
    expect(entry!.excerpt!.lastMessage).toBeGreaterThan(101);
    expect(Buffer.byteLength(snapshotJson(context!))).toBeLessThanOrEqual(2048 + 2);
    expect(textOf(context!)).toContain(MIDDLE);
    expect(textOf(context!)).toContain(`\n\n${REFERENCE_EXCERPTS_HEADING}\n\n`);
  });

  it('takes only a boolean', async () => {
    const host = await scratch.host();
    expect(() => new SessionReferenceResolver(host.ctx, { excerpts: 'yes' } as unknown as Config)).toThrow(expect.objectContaining({ code: 'SESSION_REFERENCE_INVALID_CONFIG' }));
  });
});
