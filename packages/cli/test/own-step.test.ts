/**
 * `prepare` without a dsh host (the plugin's expansion run by the engine
 * itself, see src/engine/own-step.ts) against `prepare` through a real
 * host's `agent/pre-step` chain (an engine over a host booted whole, the
 * plugin mounted in it): over the demo root, for generated messages citing
 * any of its sessions, whole or in part, among plain words and mentions
 * that name no session, both give the same messages and the same prepared
 * snapshots, message ids aside (each run mints its own).
 */
import { formatExcerptSuffix, formatSessionReferenceMention } from '@sessref/core';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Engine, type StepPreview } from '../src/engine/engine.js';
import { HostSide } from '../src/engine/host-side.js';
import { emptyRoot, openEngineOnHost, removeTemps } from './support';

let own: Engine;
let hosted: Engine;
/** The seeded sessions a message may cite (all but the one it is sent in). */
let cited: string[];

beforeAll(async () => {
  const root = await emptyRoot('sessref-own-step-');
  // dsh's sessions alone: whatever agents this machine has are no part of the comparison.
  hosted = await openEngineOnHost({ root, indexFile: `${root}.titles`, searchIndexFile: `${root}.search`, sources: [] });
  cited = (await hosted.seedDemo()).filter((id) => id !== TARGET);
  own = await Engine.open({ root, indexFile: `${root}.own-titles`, searchIndexFile: `${root}.own-search`, sources: [] });
});
afterAll(async () => {
  await Promise.all([own.close(), hosted.close()]);
  await removeTemps();
});

const TARGET = 'scratchpad';

/** A message as both runs give it, without the ids each run mints. */
function comparable(preview: StepPreview): unknown {
  return JSON.parse(JSON.stringify(preview.messages, (key, value: unknown) => (key === 'id' ? '(minted)' : value))) as unknown;
}

const word = fc.constantFrom('recap', 'compare', '长文本', 'the plan', 'see', '');

/** A message of plain words and mentions of the sessions in `ids`, whole or in part. */
function message(ids: readonly string[]): fc.Arbitrary<string> {
  const mention = fc
    .record({ sessionId: fc.constantFrom(...ids), around: fc.option(fc.constantFrom('OAuth', 'partition', 'plan'), { nil: undefined }) })
    .map(({ sessionId, around }) => `${formatSessionReferenceMention({ sessionId, label: sessionId })}${around === undefined ? '' : ` ${formatExcerptSuffix({ around })}`}`);
  return fc.array(fc.oneof(word, mention), { minLength: 1, maxLength: 5 }).map((parts) => parts.join(' ').trim() || 'hello');
}

/** Both engines prepare `text` alike: the same messages, or the same refusal. */
async function expectSamePreparation(text: string): Promise<void> {
  const [ours, theirs] = await Promise.allSettled([own.preview(TARGET, text), hosted.preview(TARGET, text)]);
  if (theirs.status === 'rejected') {
    expect(ours.status).toBe('rejected');
    expect((ours as PromiseRejectedResult).reason).toMatchObject({ code: (theirs.reason as { code?: unknown }).code });
    return;
  }
  expect(ours.status).toBe('fulfilled');
  expect(comparable((ours as PromiseFulfilledResult<StepPreview>).value)).toEqual(comparable(theirs.value));
}

describe('prepare without a dsh host', () => {
  it('gives the messages the host’s own pre-step gives, and boots no host', async () => {
    const boot = vi.spyOn(HostSide, 'boot');
    await fc.assert(fc.asyncProperty(message(cited), expectSamePreparation), { numRuns: 40 });
    expect(boot).not.toHaveBeenCalled();
  });

  it('refuses a mention of a session the root does not hold as the host does (the host answers it)', async () => {
    await fc.assert(fc.asyncProperty(message([...cited, 'no-such-session']), expectSamePreparation), { numRuns: 20 });
  });
});
