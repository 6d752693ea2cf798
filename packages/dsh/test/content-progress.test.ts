/**
 * Progress of a content-index refresh reaches every caller waiting on it,
 * not only the one that started it: `sessref serve` starts the build in the
 * background at boot, and the inspector joins it later to show how far it
 * has come.
 */
import { expect, it } from 'vitest';
import { appendExchange, createSession } from '@sessref/test-support';
import { useScratch, worldOf } from './support';

const scratch = useScratch();
/** One batch of the index's 64 and part of a second. */
const SESSIONS = 70;

it('gives every caller that joins a running refresh its progress', async () => {
  const root = await scratch.tempRoot();
  const writer = await scratch.host({ root });
  for (let index = 0; index < SESSIONS; index += 1) {
    const session = createSession(writer, { id: `note-${index}`, createdAt: index + 1 });
    appendExchange(session, { user: `A note about ${index}.`, assistant: 'Kept.' });
    await writer.flush(session);
  }
  const { resolver } = await worldOf(await scratch.host({ root }), { contentSearch: true });
  const starter: [number, number][] = [];
  const joiner: [number, number][] = [];
  const started = resolver.service.refreshContentIndex(undefined, ({ indexed, total }) => starter.push([indexed, total]));
  const joined = resolver.service.refreshContentIndex(undefined, ({ indexed, total }) => joiner.push([indexed, total]));
  const [report] = await Promise.all([started, joined]);
  // The written sessions and the world's own target, in two batches.
  expect(report.sessions).toBeGreaterThan(SESSIONS);
  expect(starter).toEqual([
    [64, report.sessions],
    [report.sessions, report.sessions],
  ]);
  expect(joiner).toEqual(starter);
});
