/**
 * Credentials never leave through the CLI (#34 item 1): a dsh session and a
 * Claude Code transcript that hold a fake credential of every kind are cited
 * by `prepare`, shown by `show`, cited through `sessref mcp`'s `ref` prompt
 * and previewed and searched in the inspector; none of the fakes reaches the
 * output, the ordinary text around each is carried unchanged, and each
 * source's entry counts what was redacted. The sources themselves are never
 * rewritten.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { CREDENTIAL_KINDS, everyFake, type PlantedCredential } from '@sessref/test-support/credentials';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, NO_DSH_HOME, emptyRoot, json, ok, removeTemps, requireBuild, serveInChild, tempDir } from './support';

const CLAUDE_ID = '3d1f0c2a-0000-4000-8000-00000000c0de';


/** Each fake on its own line between ordinary words: the text a session holds, and the text a snapshot must carry. */
function conversation(planted: readonly PlantedCredential[]): { text: string; expected: string } {
  const line = (value: string, index: number) => `step ${index}: the config said ${value} before the rerun`;
  return { text: planted.map((fake, index) => line(fake.planted, index)).join('\n'), expected: planted.map((fake, index) => line(fake.expected, index)).join('\n') };
}

const DSH = conversation(everyFake('dK7e'));
const CLAUDE = conversation(everyFake('cL4u'));
/** Every fake's value is its chunk repeated, and the text redaction leaves never holds a chunk. */
const CHUNKS = /dK7e|cL4u/;

let root: string;
let home: string;
let transcript: string;
let dshId: string;
let targetId: string;
const inHome = (args: readonly string[]) => [[...args, '--root', root], { env: { HOME: home } }] as const;

beforeAll(async () => {
  requireBuild();
  root = await emptyRoot();
  home = await tempDir('sessref-redaction-home-');
  dshId = (await json<{ sessionId: string }>(['new', '--root', root, '--title', 'Keys', '--json'])).sessionId;
  targetId = (await json<{ sessionId: string }>(['new', '--root', root, '--title', 'Target', '--json'])).sessionId;
  await ok(['send', '--root', root, '--target', dshId, '-'], { input: DSH.text });
  const folder = join(home, '.claude', 'projects', '-work-app');
  mkdirSync(folder, { recursive: true });
  transcript = join(folder, `${CLAUDE_ID}.jsonl`);
  const record = (type: 'user' | 'assistant', uuid: string, parentUuid: string | null, content: unknown) =>
    JSON.stringify({ type, sessionId: CLAUDE_ID, cwd: '/work/app', uuid, parentUuid, timestamp: '2026-12-06T10:00:00.000Z', message: { role: type, content } });
  writeFileSync(transcript, [record('user', 'u1', null, 'Which settings did the deploy use?'), record('assistant', 'a1', 'u1', [{ type: 'text', text: CLAUDE.text }])].join('\n') + '\n');
});

afterAll(removeTemps);

describe('credentials in cited sessions', () => {
  it('prepare carries none of them, from dsh or from Claude Code, the text around each unchanged, and counts them per source', async () => {
    const message = `compare @[Keys](${await mentionOf(dshId)}) with @[Claude](${await mentionOf(`claude-code:${CLAUDE_ID}`)})`;
    const output = await ok(...inHome(['prepare', '--target', targetId, '--json', message]));
    const prepared = JSON.parse(output) as { messages: { content: { text: string }[] }[]; references: { sessionId: string; redactedValues?: number }[] };
    for (const fake of [...everyFake('dK7e'), ...everyFake('cL4u')]) expect(output).not.toContain(fake.planted);
    const context = prepared.messages[1]!.content[0]!.text;
    expect(context).toContain(JSON.stringify(DSH.expected).replaceAll('<', '\\u003c'));
    expect(context).toContain(JSON.stringify(CLAUDE.expected).replaceAll('<', '\\u003c'));
    expect(prepared.references.map((reference) => reference.redactedValues)).toEqual([CREDENTIAL_KINDS.length, CREDENTIAL_KINDS.length]);
    // Without --json, each source's line of retention facts says so.
    const text = await ok(...inHome(['prepare', '--target', targetId, message]));
    expect(text.match(new RegExp(`, ${CREDENTIAL_KINDS.length} credentials redacted$`, 'gm'))).toHaveLength(2);
    expect(text).not.toMatch(CHUNKS);
  });

  it('show gives the conversation as a reference carries it, and the sources stay as they were', async () => {
    for (const [id, expected, planted] of [
      [dshId, DSH.expected, everyFake('dK7e')],
      [`claude-code:${CLAUDE_ID}`, CLAUDE.expected, everyFake('cL4u')],
    ] as const) {
      const output = await ok(...inHome(['show', id, '--json']));
      for (const fake of planted) expect(output).not.toContain(fake.planted);
      const shown = JSON.parse(output) as { conversation: { text: string }[] };
      expect(shown.conversation.map((item) => item.text)).toContain(expected);
    }
    expect(readFileSync(transcript, 'utf8')).toContain(CLAUDE.text.split('\n')[0]);
  });

  it("sessref mcp's ref prompt carries the same redacted context as prepare", async () => {
    const env = { PATH: process.env['PATH'] ?? '', HOME: home, DSH_HOME: NO_DSH_HOME, SESSREF_CACHE_DIR: await tempDir('sessref-redaction-cache-'), NO_COLOR: '1' };
    const client = new Client({ name: 'sessref-test', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--root', root], env, stderr: 'pipe' }));
    try {
      const result = await client.getPrompt({ name: 'ref', arguments: { session: dshId, session2: `claude-code:${CLAUDE_ID}` } });
      const text = result.messages.map((message) => (message.content.type === 'text' ? message.content.text : '')).join('');
      expect(text).not.toMatch(CHUNKS);
      expect(text).toContain(JSON.stringify(DSH.expected).replaceAll('<', '\\u003c'));
      expect(text).toContain(JSON.stringify(CLAUDE.expected).replaceAll('<', '\\u003c'));
    } finally {
      await client.close();
    }
  });

  it("the inspector's preview and search snippets show none of them", async () => {
    const stop = new AbortController();
    try {
      const { port, token } = await serveInChild(['--root', root], { env: { HOME: home }, signal: stop.signal });
      const post = async (path: string, body: unknown) => {
        const response = await fetch(`http://127.0.0.1:${port}${path}`, { method: 'POST', headers: { 'x-sessref-token': token, 'content-type': 'application/json' }, body: JSON.stringify(body) });
        expect(response.status, path).toBe(200);
        return JSON.stringify(await response.json());
      };
      const preview = await post('/api/preview', { target: targetId, text: `compare @[Keys](${await mentionOf(dshId)}) with @[Claude](${await mentionOf(`claude-code:${CLAUDE_ID}`)})` });
      expect(preview).not.toMatch(CHUNKS);
      expect(preview).toContain('[redacted: private-key]');
      const search = JSON.parse(await post('/api/search', { target: targetId, query: 'rerun' })) as { hits: { sessionId: string; snippet: string }[] };
      expect(search.hits.map((hit) => hit.sessionId).sort()).toEqual([dshId, `claude-code:${CLAUDE_ID}`].sort());
      for (const hit of search.hits) expect(hit.snippet).not.toMatch(CHUNKS);
    } finally {
      stop.abort();
    }
  });
});

async function mentionOf(id: string): Promise<string> {
  const mention = (await ok(...inHome(['mention', id]))).trim();
  return mention.slice(mention.indexOf('(') + 1, -1);
}
