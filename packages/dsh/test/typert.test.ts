/**
 * The strict Typert face of @sessref/dsh on the real dsh host, with the
 * published Typert runtime: the cordis Loader mounts the plugin as an entry,
 * `dsh-typert-loader` registers its `./typert` manifest with
 * `dsh-typert-registry`, and `dsh-api-gateway` serves
 * `sessionReferenceResolver/candidates` from it (in process through
 * `invoke()`, and through the handler it hands to a Connection). The client
 * half of the gateway mounts `./remote`. Every request runs against the
 * official plugin too, on its own host with the same sessions, and the
 * answers and refusals must be identical.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { Context, type Plugin } from '@deepseek-ai/cordis';
import Loader from '@deepseek-ai/cordis-plugin-loader';
import TypertRegistry from '@deepseek-ai/dsh-typert-registry';
import { validateTypertManifest } from '@deepseek-ai/dsh-typert-loader';
import type { TypertContribution } from '@deepseek-ai/dsh-typert-registry/types';
import type { InvocationDescriptor, TypertRemoteContribution } from '@deepseek-ai/dsh-typert-protocol';
import type {} from '@deepseek-ai/dsh-api-gateway';
import type { InvariantInstaller } from '@deepseek-ai/dsh-invariants';
import { TYPERT as OFFICIAL_TYPERT } from '@deepseek-ai/dsh-session-reference/typert';
import OFFICIAL_REMOTE from '@deepseek-ai/dsh-session-reference/remote';
import * as OurInvariant from '@sessref/dsh/invariant';
import { TYPERT } from '@sessref/dsh/typert';
import OUR_REMOTE from '@sessref/dsh/remote';
import SessionReferenceResolver from '@sessref/dsh';
import { appendExchange, createSession, makeAgent, setTitle, type StepAgent, type Host, type HostOptions } from '@sessref/test-support';
import { useScratch } from './support';

const scratch = useScratch();

const OURS = '@sessref/dsh';
const OFFICIAL = '@deepseek-ai/dsh-session-reference';
const ENDPOINT = 'sessionReferenceResolver/candidates';
const SEARCH_ENDPOINT = 'sessionReferenceResolver/search';
const REQUEST = { namespace: 'sessionReferenceResolver', method: 'candidates' } as const;
const SEARCH_REQUEST = { namespace: 'sessionReferenceResolver', method: 'search' } as const;

// ---------------------------------------------------------------------------
// A host serving one implementation
// ---------------------------------------------------------------------------

type RpcResult = { ok: true; value: unknown } | { ok: false; error: { code: string; message: string; details: object } };

/** What the gateway registers on `/api` of the host's Connection. */
interface Interceptor {
  matches(endpoint: string): boolean;
  handler(endpoint: string, payload: unknown, signal: AbortSignal): Promise<RpcResult>;
  authority: string;
}

interface Served {
  host: Host;
  agent: StepAgent;
  /** The loaded resolver, typed as ours (both expose the same `remoteExportCandidates`). */
  resolver: SessionReferenceResolver;
  /** The loader entry id of the resolver. */
  entry: string;
  /** Send one `/api` request the way Connection does: a JSON payload `{ args }`, answered with a JSON result. */
  rpc(endpoint: string, args: unknown): Promise<RpcResult>;
  interceptor(): Interceptor;
}

/**
 * Sessions every host gets, with fixed ids so both implementations answer
 * byte for byte: the target `target` (cwd /proj), `a` (cwd /proj, titled),
 * `b` (no cwd) and `c` (cwd /other, titled).
 */
function seed(host: Host): StepAgent {
  const target = createSession(host, { id: 'target', cwd: '/proj', createdAt: 1_000 });
  const a = createSession(host, { id: 'a', cwd: '/proj', createdAt: 2_000 });
  setTitle(a, 'Refactor the parser');
  createSession(host, { id: 'b', createdAt: 3_000 });
  const c = createSession(host, { id: 'c', cwd: '/other', createdAt: 4_000 });
  setTitle(c, 'Other work');
  return makeAgent(host, target);
}

/**
 * A real host (session store, query engine, agents, invariants) plus what a
 * dsh profile composes around the plugin: a fake Connection that records the
 * gateway's `/api` interceptor, the cordis Loader, and as Loader entries the
 * Typert registry, the gateway, the Typert loader and `packageName`.
 */
async function serve(packageName: string, options: { config?: object; host?: HostOptions } = {}): Promise<Served> {
  const host = await scratch.host(options.host);
  const agent = seed(host);
  let interceptor: Interceptor | undefined;
  await host.ctx.plugin({
    name: 'test-connection',
    apply: (ctx: Context) => {
      ctx.provide('connection', {
        rpc: {
          handle: () => {
            throw new Error('test-connection: only /api interception is expected');
          },
          intercept: (channel: string, matches: Interceptor['matches'], handler: Interceptor['handler'], options: { authority: string }) => {
            expect(channel).toBe('/api');
            interceptor = { matches, handler, authority: options.authority };
            return async () => void (interceptor = undefined);
          },
        },
      });
    },
  });
  await host.ctx.plugin(Loader, { baseUrl: import.meta.url });
  const loader = host.ctx.loader;
  for (const name of ['@deepseek-ai/dsh-typert-registry', '@deepseek-ai/dsh-api-gateway', '@deepseek-ai/dsh-typert-loader']) {
    await loader.create({ name, config: {} });
  }
  const entry = await loader.create({ name: packageName, config: options.config ?? {} });
  await loader.await();
  await vi.waitFor(() => expect(host.ctx.typert.local.get(ENDPOINT)?.id).toBe(`${packageName}#${ENDPOINT}`));
  const resolver = host.ctx.get('sessionReferenceResolver') as unknown as SessionReferenceResolver;
  expect(resolver).toBeDefined();
  const current = (): Interceptor => {
    if (interceptor === undefined) throw new Error('the gateway did not intercept /api');
    return interceptor;
  };
  return {
    host,
    agent,
    resolver,
    entry,
    interceptor: current,
    async rpc(endpoint, args) {
      const payload: unknown = JSON.parse(JSON.stringify({ args }) ?? 'null');
      const result = await current().handler(endpoint, payload, new AbortController().signal);
      return JSON.parse(JSON.stringify(result)) as RpcResult;
    },
  };
}

/** Both implementations, each on its own host. */
async function both(): Promise<{ ours: Served; official: Served }> {
  return { ours: await serve(OURS), official: await serve(OFFICIAL) };
}

/** Everything a caller of `invoke()` can observe about a refusal. */
async function refusal(host: Host, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const error = await host.ctx.typertGateway.invoke({ ...REQUEST, args }).then(
    (value) => expect.fail(`expected a refusal, got ${JSON.stringify(value)}`),
    (thrown: unknown) => thrown as Error & { code?: unknown; endpoint?: unknown; field?: unknown },
  );
  const issues = (error.cause as { issues?: { code: string; path: unknown[]; expected?: unknown }[] } | undefined)?.issues;
  return {
    name: error.name,
    code: error.code,
    endpoint: error.endpoint,
    field: error.field,
    message: error.message,
    issues: issues?.map(({ code, path, expected }) => ({ code, path, expected })),
  };
}

/** Requests the boundary must refuse, by what is wrong with them. */
const REFUSED: Record<string, Record<string, unknown>> = {
  'query is a number': { agentId: 'target', query: 7 },
  'query is an object': { agentId: 'target', query: { text: 'a' } },
  'query is null': { agentId: 'target', query: null },
  'query is an array': { agentId: 'target', query: ['a'] },
  'query is a boolean': { agentId: 'target', query: true },
  'query is missing': { agentId: 'target' },
  'an unknown field is present': { agentId: 'target', query: '', limit: 5 },
  'agentId is missing': { query: '' },
  'agentId is a number': { agentId: 42, query: '' },
  'agentId names no live agent': { agentId: 'nobody', query: '' },
};

// ---------------------------------------------------------------------------
// Descriptors
// ---------------------------------------------------------------------------

/** A descriptor as plain data: schemas as JSON Schema, the owning package renamed to ours, no source location. */
function plain(descriptor: InvocationDescriptor, owner: string): unknown {
  const { sourceLocation: _location, ...rest } = descriptor;
  const text = JSON.stringify(rest, (key, value: unknown) => (key === 'schema' ? z.toJSONSchema(value as z.ZodType) : value));
  return JSON.parse(text.replaceAll(`${owner}#`, `${OURS}#`));
}

describe('the ./typert and ./remote descriptors', () => {
  it('pass the Typert loader\'s manifest check, owned by @sessref/dsh only', () => {
    const manifest = validateTypertManifest(OURS, TYPERT);
    expect(manifest.package).toBe(OURS);
    expect(manifest.face).toBe('host');
    expect(manifest.schemas).toEqual([]);
    // The loader registers a manifest only under the Loader entry's own name.
    expect(() => validateTypertManifest(OFFICIAL, TYPERT)).toThrow(/must be owned by the package that exports it/);
  });

  it('describe the same candidates endpoint, wire fields, lookups, cancellation and schemas as the official ones', () => {
    const ours = TYPERT as TypertContribution;
    const official = OFFICIAL_TYPERT as TypertContribution;
    // Ours adds content discovery after the official endpoint.
    expect(ours.invocations.map((descriptor) => descriptor.id)).toEqual([`${OURS}#${ENDPOINT}`, `${OURS}#${SEARCH_ENDPOINT}`]);
    expect(ours.invocations.slice(0, 1).map((descriptor) => plain(descriptor, OURS))).toEqual(
      official.invocations.map((descriptor) => plain(descriptor, OFFICIAL)),
    );
    expect(OUR_REMOTE.package).toBe(OURS);
    expect(OUR_REMOTE.descriptors.slice(0, 1).map((descriptor) => plain(descriptor, OURS))).toEqual(
      OFFICIAL_REMOTE.descriptors.map((descriptor) => plain(descriptor, OFFICIAL)),
    );
    // The host and client faces carry one contract.
    expect(OUR_REMOTE.descriptors).toEqual(ours.invocations);
  });

  it('describe search like candidates (same lookup, query codec and cancellation), answering content hits', () => {
    const [candidates, search] = (TYPERT as TypertContribution).invocations as [InvocationDescriptor, InvocationDescriptor];
    const { id: _a, method: _m, implementation: _i, parameters: _p, result: _r, ...shared } = candidates;
    expect(search).toMatchObject({ ...shared, method: 'search', implementation: 'remoteExportSearch' });
    expect(plain(search, OURS)).toMatchObject({
      parameters: [
        { name: 'agent', wire: 'agentId', source: 'lookup', lookup: 'agent', codec: { mode: 'strict', typeSymbol: '@deepseek-ai/dsh-session/types#SessionId' } },
        { name: 'query', wire: 'query', source: 'json', codec: { mode: 'strict', typeSymbol: `${OURS}#${SEARCH_ENDPOINT}:query`, schema: { type: 'string' } } },
      ],
      result: { mode: 'strict', typeSymbol: `${OURS}#${SEARCH_ENDPOINT}:result` },
    });
    const item = (plain(search, OURS) as { result: { schema: { items: { required: string[]; properties: Record<string, unknown> } } } }).result.schema.items;
    expect(Object.keys(item.properties)).toEqual(['mention', 'sessionId', 'label', 'cwd', 'createdAt', 'seq', 'role', 'checkpoint', 'snippet', 'ranges']);
    expect(item.required).toEqual(['mention', 'sessionId', 'label', 'createdAt', 'seq', 'role', 'checkpoint', 'snippet', 'ranges']);
    const implementation = search.implementation as string;
    expect(typeof (SessionReferenceResolver.prototype as unknown as Record<string, unknown>)[implementation]).toBe('function');
  });

  it('reflect the service under its key, with every member the official reflects', () => {
    const [ours] = (TYPERT as TypertContribution).model.services;
    const [official] = (OFFICIAL_TYPERT as TypertContribution).model.services;
    expect(ours?.key).toBe(official?.key);
    expect(ours?.exportName).toBe(official?.exportName);
    expect(ours?.members.map((member) => member.name)).toEqual(expect.arrayContaining(official?.members.map((member) => member.name) ?? []));
    const implementation = (TYPERT as TypertContribution).invocations[0]?.implementation as string;
    expect(typeof (SessionReferenceResolver.prototype as unknown as Record<string, unknown>)[implementation]).toBe('function');
  });

  it('keep ./types and ./remote free of host code: nothing but zod is imported at run time', async () => {
    const require = createRequire(import.meta.url);
    const importsOf = (specifier: string) =>
      [...readFileSync(require.resolve(specifier), 'utf8').matchAll(/^\s*(?:import|export)\b[^;]*?\bfrom\s*'([^']+)'/gm)].map((match) => match[1]);
    expect(importsOf('@sessref/dsh/types')).toEqual([]);
    expect(Object.keys(await import('@sessref/dsh/types'))).toEqual([]);
    expect(importsOf('@sessref/dsh/remote')).toEqual(['zod']);
  });
});

// ---------------------------------------------------------------------------
// Loader and gateway
// ---------------------------------------------------------------------------

describe('registration by the Typert loader', () => {
  it('registers our ./typert manifest for the @sessref/dsh Loader entry and withdraws it with the entry', async () => {
    const { host, entry } = await serve(OURS);
    const record = host.ctx.typert.getPackage(OURS);
    expect(record?.model.services.map((service) => service.key)).toEqual(['sessionReferenceResolver']);
    const local = host.ctx.typert.local.list().filter((descriptor) => descriptor.namespace === 'sessionReferenceResolver');
    expect(local.map((descriptor) => descriptor.id)).toEqual([`${OURS}#${ENDPOINT}`, `${OURS}#${SEARCH_ENDPOINT}`]);

    host.ctx.loader.remove(entry);
    await host.ctx.loader.await();
    await vi.waitFor(() => expect(host.ctx.typert.local.get(ENDPOINT)).toBeUndefined());
    expect(host.ctx.typert.local.get(SEARCH_ENDPOINT)).toBeUndefined();
    expect(host.ctx.typert.getPackage(OURS)).toBeUndefined();
    expect(host.ctx.get('sessionReferenceResolver')).toBeUndefined();
  });

  it('lets the gateway claim the endpoint on /api for trusted hosts', async () => {
    const { interceptor } = await serve(OURS);
    expect(interceptor().matches(ENDPOINT)).toBe(true);
    expect(interceptor().authority).toBe('trusted-host');
  });

  it('after the strict definition was seen, refuses the endpoint instead of falling back to reading source', async () => {
    const { host, entry } = await serve(OURS);
    host.ctx.loader.remove(entry);
    await host.ctx.loader.await();
    await vi.waitFor(() => expect(host.ctx.typert.local.get(ENDPOINT)).toBeUndefined());
    // The same plugin mounted outside the Loader registers no definition.
    await host.ctx.plugin(SessionReferenceResolver);
    expect(await refusal(host, { agentId: 'target', query: '' })).toMatchObject({ code: 'definition-unavailable' });
  });
});

describe('sessionReferenceResolver/candidates served strictly', () => {
  it('answers a valid call with exactly what remoteExportCandidates returns, as the official plugin does', async () => {
    const { ours, official } = await both();
    for (const query of ['', 'other', 'PARSER', 'zzz']) {
      const direct = await ours.resolver.remoteExportCandidates(ours.agent, query, new AbortController().signal);
      const viaInvoke = await ours.host.ctx.typertGateway.invoke({ ...REQUEST, args: { agentId: 'target', query } });
      expect(viaInvoke).toEqual(direct);
      const viaRpc = await ours.rpc(ENDPOINT, { agentId: 'target', query });
      expect(viaRpc).toEqual({ ok: true, value: direct });
      // Byte for byte what the official plugin answers, key order included.
      expect(JSON.stringify(viaRpc)).toBe(JSON.stringify(await official.rpc(ENDPOINT, { agentId: 'target', query })));
    }
    const all = (await ours.rpc(ENDPOINT, { agentId: 'target', query: '' })) as { ok: true; value: { sessionId: string }[] };
    expect(all.value.map((candidate) => candidate.sessionId)).toEqual(['a', 'b', 'c']);
  });

  it('passes the carrier\'s cancellation to the resolver, outside the wire arguments', async () => {
    const { host, resolver } = await serve(OURS);
    const seen: unknown[][] = [];
    const original = resolver.remoteExportCandidates;
    const spy = vi.spyOn(resolver, 'remoteExportCandidates').mockImplementation(function (this: SessionReferenceResolver, ...args) {
      seen.push(args);
      return original.apply(this, args);
    });
    const controller = new AbortController();
    await host.ctx.typertGateway.invoke({ ...REQUEST, args: { agentId: 'target', query: 'x' }, signal: controller.signal });
    spy.mockRestore();
    expect(seen).toHaveLength(1);
    const [agent, query, signal] = seen[0] as [StepAgent, string, AbortSignal];
    expect(agent.id).toBe('target');
    expect(query).toBe('x');
    expect(signal).toBe(controller.signal);
  });

  it.each(Object.entries(REFUSED))('refuses a request whose %s at the boundary, exactly as the official plugin', async (_case, args) => {
    const { ours, official } = await both();
    const spy = vi.spyOn(ours.resolver, 'remoteExportCandidates');
    const seen = await refusal(ours.host, args);
    expect(spy).not.toHaveBeenCalled();
    spy.mockRestore();
    expect(seen).toEqual(await refusal(official.host, args));
    expect(seen.name).toBe('TypertGatewayError');
    expect(seen.endpoint).toBe(ENDPOINT);
    // Over the Connection handler the refusal is an RPC failure, the same for both.
    const wire = await ours.rpc(ENDPOINT, args);
    expect(wire).toEqual(await official.rpc(ENDPOINT, args));
    expect(wire).toMatchObject({ ok: false, error: { code: 'internal', message: seen.message, details: {} } });
  });

  it('refuses a non-string query as invalid input of the query field, before any read', async () => {
    const { ours } = await both();
    for (const query of [7, { text: 'a' }, null, ['a'], true]) {
      expect(await refusal(ours.host, { agentId: 'target', query })).toMatchObject({
        code: 'input-invalid',
        field: 'query',
        issues: [{ code: 'invalid_type', path: [], expected: 'string' }],
      });
    }
    expect(await refusal(ours.host, { agentId: 'target' })).toMatchObject({ code: 'arguments-invalid', field: undefined });
    expect((await refusal(ours.host, { agentId: 'target' })).message).toContain('missing "query"');
    expect(await refusal(ours.host, { agentId: 'nobody', query: '' })).toMatchObject({ code: 'lookup-not-found', field: 'agentId' });
  });
});

// ---------------------------------------------------------------------------
// The client face through the published client gateway
// ---------------------------------------------------------------------------

let clientGateway: Promise<Plugin> | undefined;

/**
 * `@deepseek-ai/dsh-api-gateway/client` is a browser bundle that hands its
 * factory to `window.__ModuleLoader__`; give it one for the import, resolving
 * its only import, `@deepseek-ai/cordis`.
 */
function loadClientGateway(): Promise<Plugin> {
  clientGateway ??= (async () => {
    const cordis = await import('@deepseek-ai/cordis');
    let plugin: Plugin | undefined;
    const scope = globalThis as { window?: unknown };
    scope.window = {
      __ModuleLoader__: {
        load: ({ factory }: { factory: (require: (id: string) => unknown) => Plugin }) => {
          plugin = factory((id) => {
            if (id === '@deepseek-ai/cordis') return cordis;
            throw new Error(`client gateway bundle imports ${id}`);
          });
        },
      },
    };
    try {
      await import('@deepseek-ai/dsh-api-gateway/client');
    } finally {
      delete scope.window;
    }
    if (plugin === undefined) throw new Error('the client gateway bundle did not load');
    return plugin;
  })();
  return clientGateway;
}

describe('sessionReferenceResolver/search served strictly', () => {
  /** Ours with content search on, over the sqlite backend, with conversations in `a` and `c`. */
  async function searching(): Promise<Served> {
    const served = await serve(OURS, { config: { contentSearch: true }, host: { search: { path: ':memory:', openAt: 'first-search' } } });
    appendExchange(served.host.sessions.get('a' as never)!, { user: 'The parser drops the quokkafactor.', assistant: 'Fixed the quokkafactor.' });
    appendExchange(served.host.sessions.get('c' as never)!, { user: 'Unrelated work.', assistant: 'Fine.' });
    return served;
  }

  it('answers a valid call with exactly what remoteExportSearch returns, checked on the way out', async () => {
    const served = await searching();
    const direct = await served.resolver.remoteExportSearch(served.agent, 'quokkafactor', new AbortController().signal);
    expect(direct.map((hit) => hit.sessionId)).toEqual(['a']);
    expect(await served.host.ctx.typertGateway.invoke({ ...SEARCH_REQUEST, args: { agentId: 'target', query: 'quokkafactor' } })).toEqual(direct);
    expect(await served.rpc(SEARCH_ENDPOINT, { agentId: 'target', query: 'quokkafactor' })).toEqual({ ok: true, value: direct });
    expect(await served.rpc(SEARCH_ENDPOINT, { agentId: 'target', query: 'nothing like it' })).toEqual({ ok: true, value: [] });
  });

  it.each(Object.entries(REFUSED))('refuses a request whose %s at the boundary, before the resolver runs', async (_case, args) => {
    const served = await searching();
    const spy = vi.spyOn(served.resolver, 'remoteExportSearch');
    const error = await served.host.ctx.typertGateway.invoke({ ...SEARCH_REQUEST, args }).then(
      () => expect.fail('expected a refusal'),
      (thrown: unknown) => thrown as Error & { code?: string; endpoint?: string },
    );
    expect(spy).not.toHaveBeenCalled();
    spy.mockRestore();
    expect(error.name).toBe('TypertGatewayError');
    expect(error.endpoint).toBe(SEARCH_ENDPOINT);
    expect(await served.rpc(SEARCH_ENDPOINT, args)).toMatchObject({ ok: false });
  });

  it('passes a coded refusal of the resolver through: content search off', async () => {
    // (A host without dsh's search backend no longer refuses: sessref's index needs none.)
    const served = await serve(OURS, { config: {} });
    const error = await served.host.ctx.typertGateway.invoke({ ...SEARCH_REQUEST, args: { agentId: 'target', query: 'x' } }).then(
      () => expect.fail('expected a refusal'),
      (thrown: unknown) => thrown as Error & { code?: string; cause?: unknown },
    );
    const coded = [error, error.cause].find((value) => (value as { code?: string } | undefined)?.code === 'SESSION_REFERENCE_SEARCH_DISABLED');
    expect(coded).toBeDefined();
  });

  it('is callable from a client through the ./remote contribution', async () => {
    const served = await searching();
    const search = await client(served, OUR_REMOTE, 'search');
    const answer = (await search('target', 'quokkafactor')) as unknown as { ok: true; value: { sessionId: string; snippet: string }[] };
    expect(answer.value.map((hit) => hit.sessionId)).toEqual(['a']);
    expect(answer.value[0]!.snippet).toContain('quokkafactor');
  });
});

type Candidates = (agentId: string, query: unknown, signal?: AbortSignal) => Promise<RpcResult>;

/** A client root whose Connection carries every call, as JSON, to `served`'s gateway. */
async function client(served: Served, contribution: TypertRemoteContribution, method: 'candidates' | 'search' = 'candidates'): Promise<Candidates> {
  const ctx = new Context();
  await ctx.plugin(TypertRegistry);
  await ctx.plugin({
    name: 'test-client-connection',
    apply: (inner: Context) => {
      inner.provide('connection', {
        rpc: {
          call: async (channel: string, endpoint: string, payload: unknown) => {
            expect(channel).toBe('/api');
            expect(served.interceptor().matches(endpoint)).toBe(true);
            return served.rpc(endpoint, (payload as { args: unknown }).args);
          },
        },
      });
    },
  });
  await ctx.plugin(await loadClientGateway());
  const remote = ctx.get('remote') as { $mount(contribution: TypertRemoteContribution): Promise<unknown> };
  await remote.$mount(contribution);
  const namespace = ctx.get('remote.sessionReferenceResolver') as Record<'candidates' | 'search', Candidates>;
  return (...args) => namespace[method](...args);
}

describe('the ./remote contribution on a client', () => {
  it('mounts on ctx.remote and calls the host, answering like the official contribution', async () => {
    const { ours, official } = await both();
    const ourCandidates = await client(ours, OUR_REMOTE);
    const officialCandidates = await client(official, OFFICIAL_REMOTE);
    for (const query of ['', 'other']) {
      const direct = await ours.resolver.remoteExportCandidates(ours.agent, query, new AbortController().signal);
      const answer = await ourCandidates('target', query);
      expect(answer).toEqual({ ok: true, value: direct });
      expect(JSON.stringify(answer)).toBe(JSON.stringify(await officialCandidates('target', query)));
    }
    // The client validates too: a non-string query never leaves it.
    const refused = (candidates: Candidates) => candidates('target', 7).then(
      () => expect.fail('expected the client to refuse'),
      (error: unknown) => (error as Error).message,
    );
    expect(await refused(ourCandidates)).toBe(await refused(officialCandidates));
    expect(await refused(ourCandidates)).toContain('rejected "query"');
  });
});

// ---------------------------------------------------------------------------
// The invariant companion
// ---------------------------------------------------------------------------

describe('the ./invariant companion', () => {
  it('loads beside ctx.invariants, reserves @sessref/dsh while loaded, and unloads cleanly', async () => {
    const host = await scratch.host();
    expect(OurInvariant.name).toBe('session-reference-invariant');
    expect(OurInvariant.inject).toEqual(['invariants']);
    const fiber = await host.ctx.plugin(OurInvariant);
    const install: InvariantInstaller = () => {};
    expect(() => host.ctx.invariants.register(OURS, install)).toThrow();
    await fiber.dispose();
    const again = host.ctx.invariants.register(OURS, install);
    again();
  });

  it('coexists with the official companion, which reserves another package name', async () => {
    const host = await scratch.host();
    const official = await import('@deepseek-ai/dsh-session-reference/invariant');
    await host.ctx.plugin(official);
    await expect(host.ctx.plugin(OurInvariant)).resolves.toBeDefined();
  });
});
