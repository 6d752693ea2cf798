/**
 * Faults on the real host: a source that changes while a reference to it is
 * being prepared, and a turn cancelled mid-preparation.
 */
import { describe, expect, it } from 'vitest';
import { SessionReferenceError, type ReferencedSessionData } from '@sessref/core';
import { formatSessionReferenceMention } from '@sessref/dsh';
import { appendExchange, compact, createOwnedSession, createSession, makeAgent, runPreStep, userPrompt, type Host } from '@sessref/test-support';
import { loadOurs, snapshotJson, useScratch } from './support';

const scratch = useScratch();

async function world(): Promise<{ host: Host; source: ReturnType<typeof createSession>; agent: ReturnType<typeof makeAgent> }> {
  const host = await scratch.host();
  await loadOurs(host);
  const source = createSession(host, { id: 'source', cwd: '/proj', createdAt: 1 });
  for (let index = 0; index < 5; index++) appendExchange(source, { user: `question ${index}`, assistant: `answer ${index}` });
  const agent = makeAgent(host, createSession(host, { id: 'target', cwd: '/proj', createdAt: 2 }));
  return { host, source, agent };
}

const cite = (text: string) => userPrompt(`${text} ${formatSessionReferenceMention({ sessionId: 'source' })}`);

/** What a reference to the source would carry if it were read right now, through the host. */
async function observedNow(host: Host): Promise<Pick<ReferencedSessionData, 'capturedThroughSeq' | 'conversation'>> {
  const probe = makeAgent(host, createSession(host, { id: `probe-${Math.random()}`, createdAt: 3 }));
  const decision = await runPreStep(host, probe, [cite('probe')]);
  if (decision.kind !== 'enter') throw new Error('probe step rejected');
  const [data] = JSON.parse(snapshotJson(decision.messages[1]!)) as ReferencedSessionData[];
  return { capturedThroughSeq: data!.capturedThroughSeq, conversation: data!.conversation };
}

describe('a source that changes while it is being prepared', () => {
  it.each([
    ['appended to', (source: ReturnType<typeof createSession>) => appendExchange(source, { user: 'late question', assistant: 'late answer' })],
    ['compacted', (source: ReturnType<typeof createSession>) => void compact(source, 'summary of everything so far')],
  ])('is captured as one consistent observation when it is %s mid-flight', async (_name, mutate) => {
    const { host, source, agent } = await world();
    const before = await observedNow(host);
    const pending = runPreStep(host, agent, [cite('see')]);
    mutate(source);
    const after = await observedNow(host);
    const decision = await pending;
    if (decision.kind !== 'enter') throw new Error('step rejected');
    const [data] = JSON.parse(snapshotJson(decision.messages[1]!)) as ReferencedSessionData[];
    const captured = { capturedThroughSeq: data!.capturedThroughSeq, conversation: data!.conversation };
    // Either the state before or after the change, never a mix of the two.
    expect([before, after]).toContainEqual(captured);
  });

  it('is either read whole or fails cleanly, never partially, when it is deleted mid-flight', async () => {
    const host = await scratch.host();
    await loadOurs(host);
    const owned = await createOwnedSession(host, { id: 'source', cwd: '/proj', createdAt: 1 });
    for (let index = 0; index < 5; index++) appendExchange(owned.session, { user: `question ${index}`, assistant: `answer ${index}` });
    const before = await observedNow(host);
    const agent = makeAgent(host, createSession(host, { id: 'target', cwd: '/proj', createdAt: 2 }));
    const pending = runPreStep(host, agent, [cite('see')]);
    await owned.dispose();
    const outcome = await pending.then(
      (decision) => ({ decision }),
      (error: unknown) => ({ error }),
    );
    if ('error' in outcome) {
      expect(outcome.error).toBeInstanceOf(SessionReferenceError);
      expect((outcome.error as SessionReferenceError).code).toBe('SESSION_REFERENCE_READ_FAILED');
      return;
    }
    if (outcome.decision.kind !== 'enter') throw new Error('step rejected');
    const [data] = JSON.parse(snapshotJson(outcome.decision.messages[1]!)) as ReferencedSessionData[];
    expect({ capturedThroughSeq: data!.capturedThroughSeq, conversation: data!.conversation }).toEqual(before);
  });
});

describe('a cancelled turn', () => {
  it('leaves nothing in the target log', async () => {
    const { host, agent } = await world();
    const before = agent.session.events.length;
    const controller = new AbortController();
    const pending = runPreStep(host, agent, [cite('see')], { signal: controller.signal });
    controller.abort();
    await expect(pending).rejects.toMatchObject({ code: 'SESSION_REFERENCE_CANCELLED' });
    expect(agent.session.events.length).toBe(before);
    expect(agent.session.deriveMessages()).toEqual([]);
  });
});
