/**
 * One generated conversation written as every generation gives the same
 * snapshot after the upcast, through dsh 0.1.0-rc.8's restore (seqs aside:
 * each generation numbers its own events), plain or as zstd frames.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readSessionLog } from '@sessref/dsh/log-generations';
import { framePerRecord, projectThroughRc8, scratchDirectory, titleOf } from './generation-support.js';
import { expectedSnapshot, writeGeneration, type Step } from '@sessref/test-support';

const write = scratchDirectory();

const text = fc.string({ minLength: 1, maxLength: 12 }).filter((value) => value.trim().length > 0);
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('exchange' as const), user: text, assistant: text, tool: fc.option(text, { nil: undefined }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('compact' as const), span: fc.integer({ min: 1, max: 6 }), summary: text }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('title' as const), title: text }) },
);

describe('a conversation in every generation', () => {
  it('gives the same snapshot and title as v0 and as the conversation itself', () => {
    let file = 0;
    fc.assert(
      fc.property(fc.array(step, { maxLength: 12 }), fc.boolean(), (steps, zstd) => {
        const expected = expectedSnapshot(steps);
        const title = steps.filter((entry) => entry.kind === 'title').at(-1)?.title;
        for (const generation of [0, 1, 2, 3, 4]) {
          const plain = writeGeneration(generation, steps);
          const read = readSessionLog(write(`log-${(file += 1)}`, zstd ? framePerRecord(plain) : plain), generation);
          expect(read.version).toBe(generation);
          expect(projectThroughRc8(read)).toEqual(expected);
          expect(titleOf(read)).toBe(title);
        }
      }),
      { numRuns: 60 },
    );
  });

  it('keeps every event at the seq its generation gave it', () => {
    const steps: Step[] = [
      { kind: 'exchange', user: 'u', assistant: 'a', tool: 'out' },
      { kind: 'compact', span: 3, summary: 's' },
    ];
    for (const generation of [0, 2, 3, 4]) {
      const log = writeGeneration(generation, steps);
      const written = log.trimEnd().split('\n').slice(1).map((line) => (JSON.parse(line) as { seq: number }).seq);
      expect(readSessionLog(write(`seqs-${generation}`, log), generation).events.map((event) => event.seq)).toEqual(written);
    }
  });
});
