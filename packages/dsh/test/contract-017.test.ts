/**
 * The 0.1.7 / 0.2 session-reference contract on a 0.1.7-shaped host: the
 * real rc.8 host packages (store, query engine, agent registry, pre-step
 * waterfall) plus stand-ins for exactly the services 0.1.7 adds, each named
 * where it is made:
 * - STAND-IN `ctx.spillStore` (0.1.7's `@deepseek-ai/dsh-spill`; rc.8 has no
 *   such package): records every `saveText` request and answers a SpillRef,
 *   or fails, or hangs, as a case needs;
 * - STAND-IN model info, `ctx.llm.resolveModelInfo(provider, model)` with a
 *   chosen context window (the real rc.8 runtime needs a provider adapter).
 * The resolver runs as a 0.1.7-linked install runs it: `hostContract:
 * '0.1.7'` and the 0.1.7 configuration schema. The rc.8 answers stay proven
 * by the differential and typert suites, which this file leaves alone.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Context } from '@deepseek-ai/cordis';
import type { PreStepDecision } from '@deepseek-ai/dsh-agent';
import type { UserMessage } from '@deepseek-ai/dsh-llm';
import type { InvocationDescriptor } from '@deepseek-ai/dsh-typert-protocol';
import { DEFAULT_MAX_REFERENCE_BYTES, FULL_SNAPSHOT_HEADING, REFERENCE_OMISSIONS_HEADING, type SessionReferenceSource } from '@sessref/core';
import SessionReferenceResolver, { configSchema, contractOfVersion, formatSessionReferenceMention, linkedContract, preparedContextOf, type Config } from '@sessref/dsh';
import { TYPERT, hostContribution } from '@sessref/dsh/typert';
import OUR_REMOTE, { remoteContribution } from '@sessref/dsh/remote';
import { appendExchange, appendUser, createSession, makeAgent, runPreStep, setTitle, userPrompt, type Host, type StepAgent } from '@sessref/test-support';
import { expectReferenceError, never, textOf, useScratch } from './support';

const scratch = useScratch();

/** The plugin as a 0.1.7-linked install mounts it: the 0.1.7 schema fills the defaults. */
class Resolver017 extends SessionReferenceResolver {
  static override Config = configSchema('0.1.7');
}

interface SaveRequest {
  owner: { sessionId: string };
  source: { kind: string; sessionId: string; label: string };
  suggestedName: string;
  content: string;
}

/** STAND-IN for 0.1.7's `ctx.spillStore`: answers each save with `answer`, recording the requests. */
function spillStore(host: Host, answer: (request: SaveRequest) => Promise<unknown>): SaveRequest[] {
  const saved: SaveRequest[] = [];
  host.ctx.provide('spillStore', {
    saveText: (request: SaveRequest) => {
      saved.push(request);
      return answer(request);
    },
  });
  return saved;
}

/** STAND-IN for the model metadata 0.1.7 reads: `ctx.llm.resolveModelInfo` answering `answer`, recording calls. */
function modelInfo(host: Host, answer: (provider: string, model: string) => Promise<unknown>): string[] {
  const calls: string[] = [];
  const llm = {
    resolveModelInfo: (provider: string, model: string) => {
      calls.push(`${provider}/${model}`);
      return answer(provider, model);
    },
  };
  (host.ctx as Context & { provide(name: string, value: unknown): unknown }).provide('llm', llm);
  return calls;
}

const window = (contextWindow: number) => async (provider: string, id: string) => ({ provider, id, name: id, context: { contextWindow } });

interface World {
  host: Host;
  resolver: SessionReferenceResolver;
  agent: StepAgent;
}

async function world(config: Config = {}, prepare: (host: Host) => void = () => {}): Promise<World> {
  const host = await scratch.host();
  prepare(host);
  await host.ctx.plugin(Resolver017, { hostContract: '0.1.7', ...config });
  const resolver = host.ctx.sessionReferenceResolver;
  const agent = makeAgent(host, createSession(host, { id: 'target', cwd: '/proj', createdAt: 100 }), { provider: 'p', model: 'm' });
  return { host, resolver, agent };
}

/** A source holding one user message of `size` ASCII bytes: the newest item, so retention cuts it rather than dropping it. */
function bigSource(host: Host, id: string, size: number): void {
  appendUser(createSession(host, { id, cwd: '/proj', createdAt: 1 }), 'x'.repeat(size));
}

/** Send a message citing `ids` through the real pre-step waterfall; the entered messages. */
async function send(w: World, ids: string[], signal?: AbortSignal): Promise<UserMessage[]> {
  const mentions = ids.map((sessionId) => formatSessionReferenceMention({ sessionId, label: sessionId })).join(' ');
  const decision = await runPreStep(w.host, w.agent, [userPrompt(`see ${mentions}`)], signal === undefined ? {} : { signal });
  if (decision.kind !== 'enter') throw new Error('the step was rejected');
  return decision.messages;
}

function referencesOf(context: UserMessage | undefined): SessionReferenceSource['references'] {
  return (context!.source as SessionReferenceSource).references;
}

// ---------------------------------------------------------------------------

describe('detection', () => {
  it('reads the contract from the dsh release: 0.1.7 and later (prereleases too) speak 0.1.7', () => {
    for (const version of ['0.1.0-rc.8', '0.1.1-rc.2', '0.1.6', '0.1.6-alpha.2', 'garbage', undefined]) expect(contractOfVersion(version)).toBe('rc.8');
    for (const version of ['0.1.7-rc.2', '0.1.7', '0.1.12', '0.2.0-rc.1', '0.2.3-alpha.2', '1.0.0']) expect(contractOfVersion(version)).toBe('0.1.7');
  });

  it('finds rc.8 linked here, so a default install answers in rc.8 form and registers the rc.8 manifest', async () => {
    expect(linkedContract()).toBe('rc.8');
    expect(TYPERT).toEqual(hostContribution('rc.8'));
    const host = await scratch.host();
    await host.ctx.plugin(SessionReferenceResolver, {});
    expect(host.ctx.sessionReferenceResolver.hostContract).toBe('rc.8');
  });

  it('takes hostContract from the configuration, and refuses any other value', async () => {
    const { resolver } = await world();
    expect(resolver.hostContract).toBe('0.1.7');
    const host = await scratch.host();
    const unknown = { hostContract: '0.3' } as unknown as Config;
    // The schema refuses it when cordis applies it; constructed without the schema, the resolver refuses it with the configuration code.
    await expect(host.ctx.plugin(Resolver017, unknown)).rejects.toThrow(/hostContract/);
    expect(() => new SessionReferenceResolver(host.ctx, unknown)).toThrow(expect.objectContaining({ code: 'SESSION_REFERENCE_INVALID_CONFIG' }));
  });

  it('fills the 0.1.7 defaults: no maxReferenceBytes, a 0.2 fraction', () => {
    const resolved = configSchema('0.1.7')({});
    expect(resolved).toMatchObject({ maxReferences: 3, candidateLimit: 50, referenceContextFraction: 0.2 });
    expect(resolved).not.toHaveProperty('maxReferenceBytes');
  });
});

describe('candidates', () => {
  it('carry displayTitle and sameWorkspace in the 0.1.7 key order, ranked as before', async () => {
    const w = await world();
    createSession(w.host, { id: 'far', cwd: '/elsewhere', createdAt: 1 });
    createSession(w.host, { id: 'loose', createdAt: 2 });
    setTitle(createSession(w.host, { id: 'near', cwd: '/proj', createdAt: 3 }), 'Near work');
    const candidates = await w.resolver.listCandidates(w.agent);
    expect(candidates).toEqual([
      { sessionId: 'near', label: 'Near work', displayTitle: 'Near work', cwd: '/proj', sameWorkspace: true, createdAt: 3 },
      { sessionId: 'loose', label: 'loose', displayTitle: 'loose', sameWorkspace: false, createdAt: 2 },
      { sessionId: 'far', label: 'far', displayTitle: 'far', cwd: '/elsewhere', sameWorkspace: false, createdAt: 1 },
    ]);
    expect(candidates.map((candidate) => Object.keys(candidate))).toEqual([
      ['sessionId', 'label', 'displayTitle', 'cwd', 'sameWorkspace', 'createdAt'],
      ['sessionId', 'label', 'displayTitle', 'sameWorkspace', 'createdAt'],
      ['sessionId', 'label', 'displayTitle', 'cwd', 'sameWorkspace', 'createdAt'],
    ]);
  });

  it('take labels from the host\'s projections where they answer, the display title from a subagent label, and match on it', async () => {
    const w = await world({}, (host) => {
      // The rc.8 projection cache exists but holds nothing here; this registry answers as 0.1.7's does for live sessions.
      host.ctx.provide('sessionProjections', {
        snapshot: (session: { id: string }) =>
          session.id === 'child' ? { asOfSeq: 0, values: { title: 'Child title', subagent: { mode: 'one-shot', label: 'reviewer', seq: 0 } } } : undefined,
      });
    });
    createSession(w.host, { id: 'child', cwd: '/proj', createdAt: 1 });
    setTitle(createSession(w.host, { id: 'plain', cwd: '/proj', createdAt: 2 }), 'Logged title');
    const remote = await w.resolver.remoteExportCandidates(w.agent, 'review', new AbortController().signal);
    expect(remote).toEqual([
      {
        sessionId: 'child',
        label: 'Child title',
        displayTitle: 'reviewer',
        cwd: '/proj',
        sameWorkspace: true,
        createdAt: 1,
        mention: formatSessionReferenceMention({ sessionId: 'child', label: 'reviewer' }),
      },
    ]);
    // A session the projections do not answer for keeps the title read as rc.8 reads it.
    expect((await w.resolver.listCandidates(w.agent, 'logged')).map((candidate) => candidate.label)).toEqual(['Logged title']);
  });
});

/** The candidate schema a dsh 0.1.7 Web client bundles, written from the fork's `SessionReferenceMentionCandidate`. */
const forkCandidates = z.array(
  z.object({
    mention: z.string(),
    sessionId: z.intersection(z.string(), z.unknown()),
    label: z.string(),
    displayTitle: z.string().optional(),
    cwd: z.string().optional(),
    sameWorkspace: z.boolean(),
    createdAt: z.number(),
  }),
);

/** The zod schema of a strict codec. */
function schemaOf(codec: unknown): z.ZodType {
  if (typeof codec === 'object' && codec !== null && 'schema' in codec && codec.schema instanceof z.ZodType) return codec.schema;
  throw new Error('not a strict codec');
}

const resultSchema = (descriptor: InvocationDescriptor | undefined) => schemaOf(descriptor?.result);

describe('Typert descriptors for a 0.1.7 client', () => {
  it('pass a 0.1.7 answer through the host check unchanged, and the client\'s schema accepts it; rc.8\'s would strip sameWorkspace', async () => {
    const w = await world();
    createSession(w.host, { id: 'a', cwd: '/proj', createdAt: 1 });
    createSession(w.host, { id: 'b', createdAt: 2 });
    const answer = await w.resolver.remoteExportCandidates(w.agent, '', new AbortController().signal);
    const host = hostContribution('0.1.7');
    const served = resultSchema(host.invocations[0]).parse(answer);
    expect(forkCandidates.parse(served)).toEqual(answer);
    expect(Object.keys((served as object[])[0]!)).toEqual(['mention', 'sessionId', 'label', 'displayTitle', 'cwd', 'sameWorkspace', 'createdAt']);
    expect(forkCandidates.safeParse(resultSchema(hostContribution('rc.8').invocations[0]).parse(answer)).success).toBe(false);
  });

  it('accept what a 0.1.7 client sends (agentId and query, cancellation beside them), on both faces', () => {
    const client = remoteContribution('0.1.7');
    expect(client.descriptors).toEqual(hostContribution('0.1.7').invocations);
    const [candidates] = client.descriptors;
    expect(candidates).toMatchObject({ id: '@sessref/dsh#sessionReferenceResolver/candidates', scope: { context: 'agent', wire: 'agentId' }, cancellation: { parameter: 'signal' } });
    const [agent, query] = candidates!.parameters;
    expect([agent?.wire, query?.wire]).toEqual(['agentId', 'query']);
    expect(schemaOf(agent?.codec).parse('session-1')).toBe('session-1');
    expect(schemaOf(query?.codec).parse('')).toBe('');
    // The default client contribution stays rc.8's.
    expect(OUR_REMOTE).toEqual(remoteContribution('rc.8'));
  });
});

describe('sources', () => {
  it('record capturedFormatVersion (0 for what rc.8 packages serve) between label and capturedThroughSeq', async () => {
    const w = await world();
    appendExchange(createSession(w.host, { id: 'src', createdAt: 1 }), { user: 'hello', assistant: 'hi' });
    const [, context] = await send(w, ['src']);
    const [entry] = referencesOf(context);
    expect(entry?.capturedFormatVersion).toBe(0);
    expect(Object.keys(entry!).slice(0, 4)).toEqual(['sessionId', 'label', 'capturedFormatVersion', 'capturedThroughSeq']);
    expect(textOf(context!)).not.toContain(REFERENCE_OMISSIONS_HEADING);
  });
});

describe('the model-relative budget', () => {
  /** The serialized size of the one source a message citing `src` carries. */
  async function budgetSeen(config: Config, contextWindow: number | undefined): Promise<{ bytes: number; calls: string[] }> {
    let calls: string[] = [];
    const w = await world(config, (host) => {
      if (contextWindow !== undefined) calls = modelInfo(host, window(contextWindow));
    });
    bigSource(w.host, 'src', 400_000);
    const [, context] = await send(w, ['src']);
    return { bytes: preparedContextOf(context!)!.sources[0]!.bytes, calls };
  }

  // The 0.1.7 contract's own test values; a shortened preview fills its budget to within a notice's width.
  it.each([
    { config: {}, contextWindow: 200_001, budget: 160_000 },
    { config: {}, contextWindow: 8_000, budget: 65_536 },
    { config: { referenceContextFraction: 0.1 }, contextWindow: 200_000, budget: 80_000 },
    { config: { referenceContextFraction: 0 }, contextWindow: 200_000, budget: 65_536 },
    { config: { maxReferenceBytes: 360 }, contextWindow: 200_000, budget: 360 },
  ])('gives $budget bytes with $config and a $contextWindow-token model', async ({ config, contextWindow, budget }) => {
    const { bytes, calls } = await budgetSeen(config, contextWindow);
    expect(bytes).toBeLessThanOrEqual(budget);
    expect(bytes).toBeGreaterThan(budget - 40);
    // An explicit budget never asks the model service.
    expect(calls).toEqual('maxReferenceBytes' in config ? [] : ['p/m']);
  });

  it('falls back to 64 KiB without model metadata, and for a route without an adapter', async () => {
    expect((await budgetSeen({}, undefined)).bytes).toBeLessThanOrEqual(DEFAULT_MAX_REFERENCE_BYTES);
    const w = await world({}, (host) => modelInfo(host, () => Promise.reject(Object.assign(new Error('no adapter'), { code: 'NO_ADAPTER' }))));
    bigSource(w.host, 'src', 100_000);
    const [, context] = await send(w, ['src']);
    expect(preparedContextOf(context!)!.sources[0]!.bytes).toBeGreaterThan(DEFAULT_MAX_REFERENCE_BYTES - 40);
  });

  it('lets any other metadata failure reject the step, and cancellation win over it', async () => {
    const failure = new Error('metadata store down');
    const w = await world({}, (host) => modelInfo(host, () => Promise.reject(failure)));
    bigSource(w.host, 'src', 10);
    await expect(send(w, ['src'])).rejects.toBe(failure);
    const hung = await world({}, (host) => modelInfo(host, () => never()));
    bigSource(hung.host, 'src', 10);
    const controller = new AbortController();
    const sending = send(hung, ['src'], controller.signal);
    controller.abort();
    await expectReferenceError(sending, 'SESSION_REFERENCE_CANCELLED');
  });

  it.each([Number.NaN, Number.POSITIVE_INFINITY, -0.1, 1.5])('refuses referenceContextFraction %s with SESSION_REFERENCE_INVALID_CONFIG, mounted or constructed', async (fraction) => {
    const host = await scratch.host();
    await expectReferenceError(host.ctx.plugin(Resolver017, { hostContract: '0.1.7', referenceContextFraction: fraction }), 'SESSION_REFERENCE_INVALID_CONFIG');
    expect(() => new SessionReferenceResolver(host.ctx, { referenceContextFraction: fraction })).toThrow(
      expect.objectContaining({ code: 'SESSION_REFERENCE_INVALID_CONFIG' }),
    );
  });
});

describe('shortened previews', () => {
  /** The notices after `## Reference omissions`. */
  function omissionsOf(context: UserMessage): unknown {
    const [, after] = textOf(context).split(`\n\n${REFERENCE_OMISSIONS_HEADING}\n\n`);
    return JSON.parse(after!.split('\n')[1]!);
  }

  it('save the full projected snapshot to ctx.spillStore and say where it is', async () => {
    let saved: SaveRequest[] = [];
    const w = await world({ maxReferenceBytes: 400 }, (host) => {
      saved = spillStore(host, async (request) => ({ locator: '/spill/1.txt', bytes: request.content.length, retrievalHint: 'Read the file' }));
    });
    bigSource(w.host, 'src', 2_000);
    const [, context] = await send(w, ['src']);
    expect(saved).toHaveLength(1);
    const [request] = saved;
    expect(request).toMatchObject({ owner: { sessionId: 'target' }, source: { kind: 'session-reference', sessionId: 'src', label: 'src' }, suggestedName: 'session-reference-1.txt' });
    expect(request!.content.split('\n')[0]).toBe(FULL_SNAPSHOT_HEADING);
    expect(request!.content).toContain('"capturedFormatVersion": 0');
    const [entry] = referencesOf(context);
    expect(omissionsOf(context!)).toEqual([
      {
        sessionId: 'src',
        capturedThroughSeq: entry!.capturedThroughSeq,
        omittedMessages: entry!.omittedMessages,
        omittedBytes: entry!.omittedBytes,
        fullSnapshot: { status: 'saved', locator: '/spill/1.txt', bytes: request!.content.length, retrievalHint: 'Read the file' },
      },
    ]);
  });

  it('report storage-not-configured without a store, and save-failed when the save fails, and still enter the step', async () => {
    const bare = await world({ maxReferenceBytes: 400 });
    bigSource(bare.host, 'src', 2_000);
    const [, plain] = await send(bare, ['src']);
    expect(omissionsOf(plain!)).toMatchObject([{ fullSnapshot: { status: 'unavailable', reason: 'storage-not-configured' } }]);
    const failing = await world({ maxReferenceBytes: 400 }, (host) => spillStore(host, () => Promise.reject(new Error('disk full'))));
    bigSource(failing.host, 'src', 2_000);
    const [, failed] = await send(failing, ['src']);
    expect(omissionsOf(failed!)).toMatchObject([{ fullSnapshot: { status: 'unavailable', reason: 'save-failed' } }]);
  });

  it('publish nothing when cancelled during the save', async () => {
    let started!: () => void;
    const saving = new Promise<void>((resolve) => (started = resolve));
    const w = await world({ maxReferenceBytes: 400 }, (host) =>
      spillStore(host, () => {
        started();
        return never();
      }),
    );
    bigSource(w.host, 'src', 2_000);
    const controller = new AbortController();
    const sending = send(w, ['src'], controller.signal);
    await saving;
    controller.abort();
    await expectReferenceError(sending, 'SESSION_REFERENCE_CANCELLED');
  });
});

describe('the pre-step decision', () => {
  it('keeps the fields the rest of the chain set (startsRequestSeries) while rewriting the messages', async () => {
    const w = await world();
    appendExchange(createSession(w.host, { id: 'src', createdAt: 1 }), { user: 'hello', assistant: 'hi' });
    w.host.ctx.on('agent/pre-step', async (_payload, next): Promise<PreStepDecision> => {
      const decision = await next();
      // 0.1.7's decision carries `startsRequestSeries`; rc.8's type does not name it, the chain passes it on all the same.
      return decision.kind === 'enter' ? ({ ...decision, startsRequestSeries: true } as PreStepDecision) : decision;
    });
    const decision = await runPreStep(w.host, w.agent, [userPrompt(`see ${formatSessionReferenceMention({ sessionId: 'src', label: 'src' })}`)]);
    expect(decision).toMatchObject({ kind: 'enter', startsRequestSeries: true });
    expect(decision.kind === 'enter' && decision.messages).toHaveLength(2);
  });
});
