/**
 * Other agents' sessions in discovery (the `sources` key): the host's own
 * sessions always come first, ranked by cwd as the official plugin ranks
 * them, and another agent's sessions follow, ranked the same way among
 * themselves, even when one of them shares the target's folder. The Claude
 * Code transcript is written by the test into a temporary `HOME`.
 */
import { chmodSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import yaml from 'js-yaml';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { SessionReferenceSource } from '@sessref/core';
import SessionReferenceResolver, { type Config } from '@sessref/dsh';
import { appendExchange, createSession, makeAgent, runPreStep, setTitle, userPrompt } from '@sessref/test-support';
import { loadOurs, snapshotJson, textOf, useClaudeTranscript, useScratch } from './support';

const scratch = useScratch();
const CLAUDE_ID = '5b0c8a52-1f0e-4c1e-9d55-2f4e0c7a9b11';
const CLAUDE = `claude-code:${CLAUDE_ID}`;
const PATCH = join(import.meta.dirname, '..', 'cordis.patch.yml');

/** `HOME` at a new temporary folder holding one Claude Code exchange in `/proj`, titled `Fix the flaky test` (see {@link useClaudeTranscript}). */
async function useClaudeHome(): Promise<void> {
  const home = await scratch.tempRoot();
  const base = { isSidechain: false, userType: 'external', cwd: '/proj', sessionId: CLAUDE_ID, version: '2.1.332' };
  const records = [
    { ...base, parentUuid: null, type: 'user', uuid: 'u-1', timestamp: '2026-01-02T10:00:00.000Z', message: { role: 'user', content: 'Fix the flaky test' } },
    {
      ...base,
      parentUuid: 'u-1',
      type: 'assistant',
      uuid: 'a-1',
      timestamp: '2026-01-02T10:00:05.000Z',
      message: { id: 'msg-1', type: 'message', role: 'assistant', model: 'claude', content: [{ type: 'text', text: 'The retry was racing the timer.' }] },
    },
    { type: 'ai-title', sessionId: CLAUDE_ID, aiTitle: 'Fix the flaky test' },
  ];
  useClaudeTranscript(home, CLAUDE_ID, records);
}

beforeEach(useClaudeHome);
afterEach(() => vi.unstubAllEnvs());

/** A host with dsh sessions in the target's folder, in none and elsewhere, and our resolver over it with `config`. */
async function world(config: Config) {
  const host = await scratch.host();
  const here = createSession(host, { id: 'dsh-here', cwd: '/proj', createdAt: 1 });
  appendExchange(here, { user: 'Plan the release.', assistant: 'Planned.' });
  setTitle(here, 'Release plan');
  const elsewhere = createSession(host, { id: 'dsh-elsewhere', cwd: '/other', createdAt: 2 });
  appendExchange(elsewhere, { user: 'Why is the flaky suite red?', assistant: 'A race.' });
  setTitle(elsewhere, 'Suite triage');
  const resolver = await loadOurs(host, config);
  const target = createSession(host, { id: 'target', cwd: '/proj', createdAt: 3 });
  return { host, resolver, agent: makeAgent(host, target) };
}

const ids = (candidates: readonly { sessionId: string }[]) => candidates.map((candidate) => candidate.sessionId);
const signal = () => new AbortController().signal;

describe("other agents' sessions in discovery", () => {
  it("come after every dsh session, even one in the target's folder after a dsh session elsewhere", async () => {
    const { resolver, agent } = await world({ sources: ['claude-code'] });
    expect(resolver.service.foreignSources.map((source) => source.name)).toEqual(['claude-code']);
    const target = { id: 'target', cwd: '/proj' };
    expect(ids(await resolver.service.candidatesFor(target))).toEqual(['dsh-here', 'dsh-elsewhere', CLAUDE]);
    expect(ids(await resolver.listCandidates(agent))).toEqual(['dsh-here', 'dsh-elsewhere', CLAUDE]);
    const remote = await resolver.remoteExportCandidates(agent, '', signal());
    expect(ids(remote)).toEqual(['dsh-here', 'dsh-elsewhere', CLAUDE]);
    expect(remote[2]).toMatchObject({ label: 'Claude Code · Fix the flaky test', cwd: '/proj' });
    // The limit cuts the other agents' sessions first.
    expect(ids(await resolver.service.candidatesFor(target, '', 2))).toEqual(['dsh-here', 'dsh-elsewhere']);
    expect(ids(await resolver.service.candidatesFor(target, '', 3))).toEqual(['dsh-here', 'dsh-elsewhere', CLAUDE]);
  });

  it("a dsh session's content match comes before another agent's title match", async () => {
    const { resolver, agent } = await world({ sources: ['claude-code'], contentSearch: true });
    expect(ids(await resolver.remoteExportCandidates(agent, 'flaky', signal()))).toEqual(['dsh-elsewhere', CLAUDE]);
  });

  it('`all` offers every agent sessref knows whose home exists, naming none; another word is refused', async () => {
    const { resolver } = await world({ sources: 'all' });
    expect(resolver.service.foreignSources.map((source) => source.name)).toEqual(['claude-code']);
    const host = await scratch.host();
    // The schema refuses it when cordis applies it; constructed without the schema, the resolver does, with the configuration code.
    await expect(host.ctx.plugin(SessionReferenceResolver, { sources: 'present' } as unknown as Config)).rejects.toThrow(/sources/);
    expect(() => new SessionReferenceResolver(host.ctx, { sources: 'present' } as unknown as Config)).toThrow(
      expect.objectContaining({ code: 'SESSION_REFERENCE_INVALID_CONFIG' }),
    );
  });

  it('without the key, or with an empty list, none is offered', async () => {
    for (const config of [{}, { sources: [] }]) {
      const { resolver } = await world(config);
      expect(resolver.service.foreignSources).toEqual([]);
      expect(ids(await resolver.service.candidatesFor({ id: 'target', cwd: '/proj' }))).toEqual(['dsh-here', 'dsh-elsewhere']);
    }
  });
});

describe("sessref's dsh bundle layer", () => {
  /** The resolver row's config in the bundle patch (the title index's `!!js` root left unevaluated). */
  function bundleConfig(): Config {
    const js = new yaml.Type('tag:yaml.org,2002:js', { kind: 'scalar', construct: (source: string) => ({ js: source }) });
    const patch = yaml.load(readFileSync(PATCH, 'utf8'), { schema: yaml.DEFAULT_SCHEMA.extend([js]) }) as { insert?: { name?: string; config?: Config }[] }[];
    return patch.flatMap((row) => row.insert ?? []).find((row) => row.name === '@sessref/dsh')!.config!;
  }
  /** A profile patch on the resolver's row as the bundle's comment documents it, each key on its line. */
  const documented = (...keys: string[]) =>
    ['#   - id: sessref-session-reference', '#     config:', ...keys.map((key) => `#       ${key}`)].map((line) => `    ${line}\n`).join('');

  it('offers every agent whose home exists at start, skipping the absent ones without a word', async () => {
    const config = bundleConfig();
    // No agent is named: `all` is every agent sessref knows, so a new one is on in dsh web without editing the bundle.
    expect(config).toEqual({ contentSearch: true, sources: 'all', redactSecrets: true });
    const warn = vi.spyOn(console, 'warn');
    const { resolver, agent } = await world(config);
    expect(resolver.service.foreignSources.map((source) => source.name)).toEqual(['claude-code']);
    expect(ids(await resolver.remoteExportCandidates(agent, '', signal()))).toEqual(['dsh-here', 'dsh-elsewhere', CLAUDE]);
    expect(warn).not.toHaveBeenCalled();
    warn.mockRestore();
  });

  it('turns them off with the documented line, content search kept (a patch replaces the whole config)', async () => {
    const text = readFileSync(PATCH, 'utf8');
    expect(text).toContain(documented('contentSearch: true', 'sources: []'));
    const { resolver, agent } = await world({ contentSearch: true, sources: [] });
    expect(resolver.service.foreignSources).toEqual([]);
    expect(resolver.service.contentSearch).toBe(true);
    expect(ids(await resolver.remoteExportCandidates(agent, '', signal()))).toEqual(['dsh-here', 'dsh-elsewhere']);
    // And the other documented line: content search off, the other agents kept.
    const sources = bundleConfig().sources!;
    expect(text).toContain(documented('contentSearch: false', 'sources: all'));
    const off = await world({ contentSearch: false, sources });
    expect(off.resolver.service.contentSearch).toBe(false);
    expect(off.resolver.service.foreignSources.map((source) => source.name)).toEqual(['claude-code']);
  });
});

describe("an agent's home that cannot be checked (#37)", () => {
  it('is skipped with one line through the context logger, at the level it shows by default, naming its folder; the other agents and dsh sessions are offered', async () => {
    const home = process.env['HOME']!;
    const codex = join(home, '.codex');
    symlinkSync(codex, codex);
    const host = await scratch.host();
    const warnings: string[] = [];
    // An exporter at cordis's default level (1: errors and info), as dsh's own log shows.
    host.ctx.logger.exporter({ export: (message) => message.type === 'info' && warnings.push(`${message.name}: ${String(message.args[0])}`) });
    const here = createSession(host, { id: 'dsh-here', cwd: '/proj', createdAt: 1 });
    appendExchange(here, { user: 'Plan the release.', assistant: 'Planned.' });
    const resolver = await loadOurs(host, { sources: 'all' });
    const target = createSession(host, { id: 'target', cwd: '/proj', createdAt: 3 });
    expect(warnings).toEqual([`sessref: Codex sessions skipped: ${codex} cannot be read (ELOOP)`]);
    expect(resolver.service.skippedHomes).toEqual([{ name: 'codex', displayName: 'Codex', home: codex, message: `Codex sessions skipped: ${codex} cannot be read (ELOOP)` }]);
    expect(resolver.service.foreignSources.map((source) => source.name)).toEqual(['claude-code']);
    expect(ids(await resolver.remoteExportCandidates(makeAgent(host, target), '', signal()))).toEqual(['dsh-here', CLAUDE]);
  });
});

describe('a dsh root mirrored from another machine (#36)', () => {
  const REMOTE = 'devbox/dsh:deploy';
  const LABEL = 'devbox · dsh · Roll back the deploy';
  const ANSWER = 'Revert the migration first, then the release tag.';

  /**
   * `SESSREF_CACHE_DIR` (until `vi.unstubAllEnvs()`) at a new cache folder
   * holding the mirror of `devbox` as `sessref remote sync` lays it out
   * (`remotes/devbox/home/`, as under that machine's home), its dsh root at
   * dsh's default place written by a dsh host of its own.
   */
  async function useDevboxMirror(): Promise<void> {
    const cache = await scratch.tempRoot();
    const root = join(cache, 'remotes', 'devbox', 'home', '.dsh', 'sessions');
    mkdirSync(root, { recursive: true });
    chmodSync(join(cache, 'remotes'), 0o700);
    const devbox = await scratch.host({ root });
    const session = createSession(devbox, { id: 'deploy', cwd: '/home/dev/app', createdAt: 4 });
    appendExchange(session, { user: 'How do we roll back the deploy?', assistant: ANSWER });
    setTitle(session, 'Roll back the deploy');
    await devbox.flush(session);
    vi.stubEnv('SESSREF_CACHE_DIR', cache);
  }

  beforeEach(useDevboxMirror);

  it("is offered after this machine's sessions and the agents', its id and label naming its host, by title and by content", async () => {
    const { resolver, agent } = await world({ contentSearch: true, sources: 'all', redactSecrets: true });
    expect(resolver.service.foreignSources.map(({ name, displayName, host }) => ({ name, displayName, host }))).toEqual([
      { name: 'claude-code', displayName: 'Claude Code', host: undefined },
      { name: 'devbox/dsh', displayName: 'devbox · dsh', host: 'devbox' },
    ]);
    const candidates = await resolver.remoteExportCandidates(agent, '', signal());
    expect(ids(candidates)).toEqual(['dsh-here', 'dsh-elsewhere', CLAUDE, REMOTE]);
    expect(candidates[3]).toMatchObject({ label: LABEL, cwd: '/home/dev/app' });
    expect(ids(await resolver.remoteExportCandidates(agent, 'roll back', signal()))).toEqual([REMOTE]);
    const hits = await resolver.remoteExportSearch(agent, 'migration', signal());
    expect(hits.map((hit) => ({ sessionId: hit.sessionId, label: hit.label }))).toEqual([{ sessionId: REMOTE, label: LABEL }]);
  });

  it('a mention of it brings its snapshot under the same untrusted framing, its label naming the host', async () => {
    const { host, resolver, agent } = await world({ sources: 'all' });
    const [candidate] = await resolver.remoteExportCandidates(agent, 'roll back', signal());
    const prompt = userPrompt(`see ${candidate!.mention}`);
    const decision = await runPreStep(host, agent, [prompt]);
    expect(decision.kind).toBe('enter');
    if (decision.kind !== 'enter') return;
    const [readable, context, ...rest] = decision.messages;
    expect(rest).toEqual([]);
    expect(textOf(readable!)).toBe(`see @${LABEL}`);
    expect((context!.source as SessionReferenceSource).references).toMatchObject([{ sessionId: REMOTE, label: LABEL }]);
    expect(JSON.parse(snapshotJson(context!))).toMatchObject([{ sessionId: REMOTE, label: LABEL }]);
    expect(snapshotJson(context!)).toContain(ANSWER);
  });

  it('follows the `sources` key, as the agents\' mirrors do: offered with any agent named, never without one', async () => {
    const cases: [Config, string[]][] = [
      [{ sources: ['codex'] }, ['devbox/dsh']],
      [{ sources: [] }, []],
      [{}, []],
    ];
    for (const [config, offered] of cases) {
      const { resolver, agent } = await world(config);
      expect(resolver.service.foreignSources.map((source) => source.name)).toEqual(offered);
      expect(ids(await resolver.remoteExportCandidates(agent, '', signal())).includes(REMOTE)).toBe(offered.length > 0);
    }
  });
});
