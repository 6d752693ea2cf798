/**
 * Credentials never leave through the CLI (#34 item 1): a dsh session and a
 * Claude Code transcript that hold a fake credential of every kind are cited
 * by `prepare` and shown by `show`; none of the fakes reaches the output, the
 * ordinary text around each is carried unchanged, and each source's entry
 * counts what was redacted. The sources themselves are never rewritten.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CREDENTIAL_KINDS, fakeCredential, type PlantedCredential } from '@sessref/test-support/credentials';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emptyRoot, json, ok, removeTemps, requireBuild, tempDir } from './support';

const CLAUDE_ID = '3d1f0c2a-0000-4000-8000-00000000c0de';

/** One fake of every kind, each spelling in turn, from one obviously repeated chunk. */
function fakes(chunk: string): PlantedCredential[] {
  let turn = 0;
  return CREDENTIAL_KINDS.map((kind) => fakeCredential(kind, { chunk, pick: (options) => options[turn++ % options.length]! }));
}

/** Each fake on its own line between ordinary words: the text a session holds, and the text a snapshot must carry. */
function conversation(planted: readonly PlantedCredential[]): { text: string; expected: string } {
  const line = (value: string, index: number) => `step ${index}: the config said ${value} before the rerun`;
  return { text: planted.map((fake, index) => line(fake.planted, index)).join('\n'), expected: planted.map((fake, index) => line(fake.expected, index)).join('\n') };
}

const DSH = conversation(fakes('dK7e'));
const CLAUDE = conversation(fakes('cL4u'));

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
    for (const fake of [...fakes('dK7e'), ...fakes('cL4u')]) expect(output).not.toContain(fake.planted);
    const context = prepared.messages[1]!.content[0]!.text;
    expect(context).toContain(JSON.stringify(DSH.expected).replaceAll('<', '\\u003c'));
    expect(context).toContain(JSON.stringify(CLAUDE.expected).replaceAll('<', '\\u003c'));
    expect(prepared.references.map((reference) => reference.redactedValues)).toEqual([CREDENTIAL_KINDS.length, CREDENTIAL_KINDS.length]);
  });

  it('show gives the conversation as a reference carries it, and the sources stay as they were', async () => {
    for (const [id, expected, planted] of [
      [dshId, DSH.expected, fakes('dK7e')],
      [`claude-code:${CLAUDE_ID}`, CLAUDE.expected, fakes('cL4u')],
    ] as const) {
      const output = await ok(...inHome(['show', id, '--json']));
      for (const fake of planted) expect(output).not.toContain(fake.planted);
      const shown = JSON.parse(output) as { conversation: { text: string }[] };
      expect(shown.conversation.map((item) => item.text)).toContain(expected);
    }
    expect(readFileSync(transcript, 'utf8')).toContain(CLAUDE.text.split('\n')[0]);
  });
});

async function mentionOf(id: string): Promise<string> {
  const mention = (await ok(...inHome(['mention', id]))).trim();
  return mention.slice(mention.indexOf('(') + 1, -1);
}
