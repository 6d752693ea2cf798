/**
 * Excerpts through the CLI's faces (#34 item 2): `sessref show --around` and
 * `sessref mcp`'s `ref` prompt with `around` give the middle of the demo's
 * 4,000-message research log, which the whole-session snapshot leaves out,
 * within the same budget. `show` runs in process; `mcp` is driven by the
 * MCP SDK's own client over stdio, as a client runs it.
 */
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { DEFAULT_MAX_REFERENCE_BYTES, REFERENCE_EXCERPTS_HEADING, extractReferencedSessionsJson } from '@sessref/core';
import { utf8Length } from '@sessref/core/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NO_DSH_HOME, emptyRoot, inProcess, removeTemps, tempDir } from './support';

/** The binary as `tsc -b` emits it, which holds this change before the bundle does. */
const DIST_BIN = fileURLToPath(new URL('../dist/bin.js', import.meta.url));
/** A message in the middle of the research log (message 1999 of 4000), which its newest-first snapshot drops. */
const MIDDLE = 'Note 1000: compare tokenizer throughput on the wiki corpus (run 1000).';

let root: string;
let cache: string;
let client: Client | undefined;

beforeAll(async () => {
  cache = await tempDir('sessref-excerpts-cache-');
  // The in-process runs keep their derived files where this process's environment says.
  process.env.SESSREF_CACHE_DIR = cache;
  root = await emptyRoot();
  expect((await inProcess(['seed', '--root', root])).code).toBe(0);
});

afterAll(async () => {
  await client?.close();
  await removeTemps();
});

interface ShownExcerpt {
  conversation: unknown[];
  reference: {
    bytes: number;
    originalMessages: number;
    retainedMessages: number;
    omittedMessages: number;
    excerpt?: { around: string; firstMessage: number; lastMessage: number };
    conversation?: { role: string; text: string }[];
  };
  maxReferenceBytes: number;
}

async function showJson(args: readonly string[]): Promise<ShownExcerpt> {
  const { code, stdout, stderr } = await inProcess(['show', 'research-log', '--root', root, '--sources', 'dsh', '--json', ...args]);
  expect(stderr).not.toContain('error');
  expect(code).toBe(0);
  return JSON.parse(stdout) as ShownExcerpt;
}

describe('sessref show --around', () => {
  it('gives the excerpt around the phrase, within the budget, where the whole-session snapshot omits that message', async () => {
    const whole = await showJson([]);
    const excerpt = await showJson(['--around', 'note 1000:']);
    // The whole-session snapshot keeps the newest messages only: message 1999 is not among them.
    expect(whole.reference.originalMessages - whole.reference.retainedMessages).toBeGreaterThanOrEqual(1999);
    expect(whole.reference).not.toHaveProperty('excerpt');
    const { excerpt: range, conversation, bytes } = excerpt.reference;
    expect(range!.around).toBe('note 1000:');
    expect(range!.firstMessage).toBeLessThan(1999);
    expect(range!.lastMessage).toBeGreaterThan(1999);
    expect(conversation).toHaveLength(range!.lastMessage - range!.firstMessage + 1);
    expect(conversation![1999 - range!.firstMessage]!.text).toBe(MIDDLE);
    expect(bytes).toBeLessThanOrEqual(DEFAULT_MAX_REFERENCE_BYTES);
    expect(excerpt.reference.omittedMessages).toBe(4000 - conversation!.length);
    // The projection is the whole session either way.
    expect(excerpt.conversation).toHaveLength(4000);
  });

  it('shows the message holding the phrase among its numbered neighbours, and which part a reference carries', async () => {
    const { code, stdout } = await inProcess(['show', 'research-log', '--root', root, '--sources', 'dsh', '--around', 'Note 1000:', '--max-bytes', '4000']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^ {3}#1999 user +\d+ B {2}Note 1000: compare tokenizer/m);
    expect(stdout).toMatch(/^ {2}… \d+ before the excerpt …$/m);
    expect(stdout).toMatch(/^ {2}… \d+ after the excerpt …$/m);
    expect(stdout).toMatch(/^a reference carries [\d.]+ (?:B|KiB) of 3\.9 KiB: messages \d+–\d+ around "Note 1000:", \d+\/4000 messages kept/m);
  });

  it('says when no carried message holds the phrase', async () => {
    const { code, stderr } = await inProcess(['show', 'research-log', '--root', root, '--sources', 'dsh', '--around', 'no such phrase anywhere', '--json']);
    expect(code).not.toBe(0);
    expect(JSON.parse(stderr.trim().split('\n').at(-1)!)).toMatchObject({ error: { code: 'SESSION_REFERENCE_EXCERPT_NOT_FOUND' } });
  });
});

describe('an excerpt suffix after a mention in prepare', () => {
  it('sessref mention --around writes the suffix, and prepare cites the middle part it names, within the budget', async () => {
    const mention = await inProcess(['mention', 'research-log', '--root', root, '--sources', 'dsh', '--around', '  Note   1000: ']);
    expect(mention.stdout.trim()).toMatch(/^@\[.*\]\(dsh-session:[\w-]+\)\{around: "Note 1000:"\}$/);
    const { code, stdout } = await inProcess(['prepare', '--root', root, '--sources', 'dsh', '--target', 'scratchpad', '--json', `what was decided? ${mention.stdout.trim()}`]);
    expect(code).toBe(0);
    const prepared = JSON.parse(stdout) as { messages: { content: { text: string }[] }[]; references: { excerpt?: { firstMessage: number; lastMessage: number } }[]; sourceBytes: number[] };
    const [readable, context] = prepared.messages.map((message) => message.content[0]!.text);
    expect(readable).toMatch(/^what was decided\? @.+\{around: "Note 1000:"\}$/);
    expect(context).toContain(MIDDLE);
    expect(context).toContain(REFERENCE_EXCERPTS_HEADING);
    expect(prepared.references[0]!.excerpt!.firstMessage).toBeLessThan(1999);
    expect(prepared.references[0]!.excerpt!.lastMessage).toBeGreaterThan(1999);
    expect(prepared.sourceBytes[0]).toBeLessThanOrEqual(DEFAULT_MAX_REFERENCE_BYTES);
  });
});

describe('sessref mcp ref with around', () => {
  async function connect(): Promise<Client> {
    client = new Client({ name: 'sessref-excerpt-test', version: '1.0.0' });
    const env = { PATH: process.env.PATH ?? '', HOME: await tempDir('sessref-excerpts-home-'), DSH_HOME: NO_DSH_HOME, SESSREF_CACHE_DIR: cache, NO_COLOR: '1' };
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [DIST_BIN, 'mcp', '--root', root], env, stderr: 'pipe' }));
    return client;
  }

  const textOf = (result: { messages: { content: unknown }[] }) => (result.messages[0]!.content as { text: string }).text;

  it('inserts the middle of the session the whole-session snapshot leaves out, within the budget, and says the rest was left out', async () => {
    const mcp = await connect();
    const { prompts } = await mcp.listPrompts();
    expect(prompts[0]!.arguments?.find((argument) => argument.name === 'around')).toMatchObject({ required: false });
    const whole = textOf(await mcp.getPrompt({ name: 'ref', arguments: { session: 'research-log' } }));
    const excerpt = await mcp.getPrompt({ name: 'ref', arguments: { session: 'research-log', around: 'Note 1000:' } });
    const text = textOf(excerpt);
    expect(whole).not.toContain(MIDDLE);
    expect(whole).not.toContain(REFERENCE_EXCERPTS_HEADING);
    expect(text).toContain(MIDDLE);
    expect(excerpt.description).toMatch(/^Excerpt around "Note 1000:" of /);
    const [data] = JSON.parse(extractReferencedSessionsJson(text)!) as unknown[];
    expect(utf8Length(JSON.stringify(data).replaceAll('<', '\\u003c'))).toBeLessThanOrEqual(DEFAULT_MAX_REFERENCE_BYTES);
    const notice = text.slice(text.indexOf(REFERENCE_EXCERPTS_HEADING));
    expect(notice).toContain('the rest of that session was left out');
    const [recorded] = JSON.parse(notice.split('\n').at(-1)!) as { sessionId: string; around: string; firstMessage: number; lastMessage: number; originalMessages: number }[];
    expect(recorded).toMatchObject({ sessionId: 'research-log', around: 'Note 1000:', originalMessages: 4000 });
    expect(recorded!.firstMessage).toBeLessThan(1999);
    expect(recorded!.lastMessage).toBeGreaterThan(1999);
  });

  it('completes around with phrases from the cited session’s content hits, each of which it then cites', async () => {
    const mcp = client ?? (await connect());
    const completion = await mcp.complete({
      ref: { type: 'ref/prompt', name: 'ref' },
      argument: { name: 'around', value: 'wiki corpus (run 1000' },
      context: { arguments: { session: 'research-log' } },
    });
    const phrases = completion.completion.values;
    expect(phrases.length).toBeGreaterThan(0);
    for (const phrase of phrases) expect(phrase.toLowerCase()).toContain('wiki');
    const cited = await mcp.getPrompt({ name: 'ref', arguments: { session: 'research-log', around: phrases[0]! } });
    expect(textOf(cited)).toContain(REFERENCE_EXCERPTS_HEADING);
  });

  it('refuses a phrase no carried message holds, naming the session', async () => {
    const mcp = client ?? (await connect());
    await expect(mcp.getPrompt({ name: 'ref', arguments: { session: 'research-log', around: 'no such phrase anywhere' } })).rejects.toThrow(/research-log/);
  });
});
