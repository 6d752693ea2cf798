/**
 * The `redactSecrets` option (#34 item 1). Off by default: a dsh session
 * holding credentials is snapshotted exactly as the official plugin
 * snapshots it, byte for byte. On: its credentials become
 * `[redacted: <kind>]` and its entry counts them. Another agent's session is
 * redacted either way. Every face that carries a snapshot agrees: `prepare`,
 * the pre-step, `prepareFor` (`sessref mcp`) and `snapshotOf` (the inspector).
 */
import type { ContentBlock, UserMessage } from '@deepseek-ai/dsh-llm';
import type { SessionId } from '@deepseek-ai/dsh-session';
import SessionReferenceResolver, { type Config, type SessionReferenceSource } from '@sessref/dsh';
import { CREDENTIAL_KINDS, everyFake, type PlantedCredential } from '@sessref/test-support/credentials';
import { appendExchange, createSession, makeAgent } from '@sessref/test-support';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { prepareOutcome, twoSides } from './differential';
import { loadOurs, snapshotJson, textOf, useClaudeTranscript, useScratch } from './support';

const scratch = useScratch();
const CLAUDE_ID = '7c2d9e14-3a5b-4c6d-8e7f-90a1b2c3d4e5';
const CLAUDE = `claude-code:${CLAUDE_ID}`;

const OWN = everyFake('oW3n');
const FOREIGN = everyFake('fR8g');
const lines = (planted: readonly PlantedCredential[], pick: (fake: PlantedCredential) => string) => planted.map((fake) => `we used ${pick(fake)} here`).join('\n');

/** A Claude Code transcript of one exchange whose answer holds every foreign fake, in a temporary `HOME`. */
async function claudeHome(): Promise<void> {
  const home = await scratch.tempRoot();
  const base = { isSidechain: false, userType: 'external', cwd: '/proj', sessionId: CLAUDE_ID, version: '2.1.332' };
  const records = [
    { ...base, parentUuid: null, type: 'user', uuid: 'u-1', timestamp: '2026-01-02T10:00:00.000Z', message: { role: 'user', content: 'What did the deploy use?' } },
    { ...base, parentUuid: 'u-1', type: 'assistant', uuid: 'a-1', timestamp: '2026-01-02T10:00:05.000Z', message: { role: 'assistant', content: [{ type: 'text', text: lines(FOREIGN, (fake) => fake.planted) }] } },
  ];
  useClaudeTranscript(home, CLAUDE_ID, records);
}

afterEach(() => vi.unstubAllEnvs());

/** A dsh session holding every own fake and the Claude Code one, with our resolver over both under `config`. */
async function world(config: Config) {
  await claudeHome();
  const host = await scratch.host();
  appendExchange(createSession(host, { id: 'keys', cwd: '/proj', createdAt: 1 }), { user: lines(OWN, (fake) => fake.planted), assistant: 'Noted.' });
  const resolver = await loadOurs(host, { sources: ['claude-code'], ...config });
  const agent = makeAgent(host, createSession(host, { id: 'target', cwd: '/proj', createdAt: 2 }));
  return { resolver, agent };
}

/** The source entries of a context message. */
const entriesOf = (context: UserMessage) => (context.source as SessionReferenceSource).references;
const cite = (sessionId: string): { sessionId: SessionId; label: string } => ({ sessionId: sessionId as SessionId, label: 'cited' });
const content: ContentBlock[] = [{ type: 'text', text: 'see @cited' }];

describe('redactSecrets', () => {
  it("is off by default: a dsh session's credentials reach the snapshot exactly as the official plugin carries them", async () => {
    const [ours, oracle] = await twoSides(scratch, {
      target: { id: 'target', createdAt: 9 },
      sources: [{ id: 'keys', createdAt: 1, steps: [{ kind: 'user', blocks: [lines(OWN, (fake) => fake.planted)] }, { kind: 'end-turn' }] }],
      config: {},
      persisted: false,
    });
    const mine = await prepareOutcome(ours, content, [cite('keys')]);
    expect(mine).toEqual(await prepareOutcome(oracle, content, [cite('keys')]));
    const context = 'context' in mine ? mine.context : undefined;
    expect(context?.json).toContain(JSON.stringify(lines(OWN, (fake) => fake.planted)).slice(1, -1));
    expect(context?.sourceJson).not.toContain('redactedValues');
  });

  it("off, another agent's session is redacted all the same and counted; the host's own is not", async () => {
    const { resolver, agent } = await world({});
    const prepared = await resolver.prepare(agent, content, [cite('keys'), cite(CLAUDE)]);
    const context = prepared.additionalContext!;
    expect(entriesOf(context).map((entry) => entry.redactedValues)).toEqual([undefined, CREDENTIAL_KINDS.length]);
    const json = snapshotJson(context);
    for (const fake of FOREIGN) expect(json).not.toContain(JSON.stringify(fake.planted).slice(1, -1));
    expect(json).toContain(JSON.stringify(lines(FOREIGN, (fake) => fake.expected)).slice(1, -1));
  });

  it('on, every face carries the redacted text of both and counts each source', async () => {
    const { resolver, agent } = await world({ redactSecrets: true });
    /** `text` carries none of `planted` and each one's redacted line, as JSON escapes it. */
    const expectRedacted = (text: string, planted: readonly PlantedCredential[]) => {
      for (const fake of planted) expect(text).not.toContain(JSON.stringify(fake.planted).slice(1, -1));
      expect(text).toContain(JSON.stringify(lines(planted, (fake) => fake.expected)).slice(1, -1));
    };
    const prepared = await resolver.prepare(agent, content, [cite('keys'), cite(CLAUDE)]);
    const text = textOf(prepared.additionalContext!);
    expectRedacted(text, OWN);
    expectRedacted(text, FOREIGN);
    expect(entriesOf(prepared.additionalContext!).map((entry) => entry.redactedValues)).toEqual([CREDENTIAL_KINDS.length, CREDENTIAL_KINDS.length]);
    const forMcp = await resolver.service.prepareFor({ id: 'target', cwd: '/proj' }, [cite('keys'), cite(CLAUDE)]);
    expect(forMcp?.text).toBe(text);
    for (const [id, planted] of [['keys', OWN], [CLAUDE, FOREIGN]] as const) {
      const view = await resolver.service.snapshotOf(id);
      expect(view.fit.redactedValues).toBe(CREDENTIAL_KINDS.length);
      expectRedacted(view.fit.retained!.json, planted);
      expectRedacted(JSON.stringify(view.fit.items), planted);
    }
  });

  it("content search indexes the redacted text whatever the option: no snippet shows a credential, and none is found", async () => {
    const { resolver } = await world({ contentSearch: true });
    const hits = await resolver.service.searchContentFor(undefined, 'used', 50);
    expect(hits.map((hit) => hit.sessionId).sort()).toEqual([CLAUDE, 'keys'].sort());
    // Every fake's value is its chunk repeated; the text that stays around it never holds the chunk.
    for (const hit of hits) expect(hit.snippet).not.toMatch(/oW3n|fR8g/);
    expect(hits.some((hit) => hit.snippet.includes('[redacted: '))).toBe(true);
    expect(await resolver.service.searchContentFor(undefined, 'oW3noW3n', 50)).toEqual([]);
    expect(await resolver.service.searchContentFor(undefined, 'fR8gfR8g', 50)).toEqual([]);
  });

  it("another agent's title is redacted wherever it names the session, whatever the option: candidates, and the label a pick carries into the message and the snapshot", async () => {
    const home = await scratch.tempRoot();
    const base = { isSidechain: false, userType: 'external', cwd: '/proj', sessionId: CLAUDE_ID, version: '2.1.332' };
    const key = FOREIGN[0]!;
    useClaudeTranscript(home, CLAUDE_ID, [
      { type: 'custom-title', customTitle: `deploy with ${key.planted}`, sessionId: CLAUDE_ID },
      { ...base, parentUuid: null, type: 'user', uuid: 'u-1', timestamp: '2026-01-02T10:00:00.000Z', message: { role: 'user', content: 'Deploy it.' } },
    ]);
    const host = await scratch.host();
    const resolver = await loadOurs(host, { sources: ['claude-code'] });
    const agent = makeAgent(host, createSession(host, { id: 'target', cwd: '/proj', createdAt: 2 }));
    const [candidate] = (await resolver.listCandidates(agent)).filter((found) => found.sessionId === CLAUDE);
    expect(candidate?.label).toBe(`Claude Code · deploy with ${key.expected}`);
    // Cited as the picker offers it: the label it carries into the message and the snapshot is the redacted one.
    const prepared = await resolver.prepare(agent, [{ type: 'text', text: `see @${candidate!.label}` }], [{ sessionId: CLAUDE, label: candidate!.label }]);
    expect(JSON.stringify(prepared)).not.toContain(JSON.stringify(key.planted).slice(1, -1));
    expect(entriesOf(prepared.additionalContext!)[0]?.label).toBe(candidate!.label);
  });

  it('takes only a boolean', async () => {
    const host = await scratch.host();
    expect(() => new SessionReferenceResolver(host.ctx, { redactSecrets: 'yes' } as unknown as Config)).toThrow(
      expect.objectContaining({ code: 'SESSION_REFERENCE_INVALID_CONFIG' }),
    );
  });
});
