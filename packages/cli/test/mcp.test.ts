/**
 * `sessref mcp` end to end: the MCP SDK's own client drives the built
 * binary over stdio (both protocol eras), and raw JSON-RPC lines play the
 * clients that misbehave. The root is the demo root; the home holds one
 * Claude Code transcript from `../shared`, copied into a temporary home.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, ProtocolError } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { encodeSessionReferenceUri, REFERENCED_SESSIONS_WARNING } from '@sessref/core';
import { utf8Length } from '@sessref/core/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, NO_DSH_HOME, emptyRoot, json, ok, removeTemps, requireBuild, tempDir } from './support';

const CLAUDE_ID = 'claude-code:ae4a77f8-aedd-4bc1-888f-c94edc91af04';
const SAMPLE = fileURLToPath(new URL('../../../../shared/cross-harness-samples/claude-code/spotter/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl', import.meta.url));

let root: string;
let env: Record<string, string>;
const clients: Client[] = [];

beforeAll(async () => {
  requireBuild();
  root = await emptyRoot();
  await ok(['seed', '--root', root]);
  const home = await tempDir('sessref-mcp-home-');
  mkdirSync(join(home, '.claude', 'projects', '-work-app'), { recursive: true });
  copyFileSync(SAMPLE, join(home, '.claude', 'projects', '-work-app', 'ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl'));
  env = { PATH: process.env.PATH ?? '', HOME: home, DSH_HOME: NO_DSH_HOME, SESSREF_CACHE_DIR: await tempDir('sessref-mcp-cache-'), NO_COLOR: '1' };
});

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await removeTemps();
});

/** The SDK's client on `sessref mcp --root <demo root> ...args`, on the 2025 handshake unless `modern`. */
async function connect(args: readonly string[] = [], modern = false): Promise<Client> {
  const client = new Client({ name: 'sessref-test', version: '1.0.0' }, modern ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {});
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--root', root, ...args], env, stderr: 'pipe' });
  await client.connect(transport);
  clients.push(client);
  return client;
}

/** The context message `sessref prepare` puts after a message citing `sessionId` by its mention: what a dsh target gets. */
async function dshContext(sessionId: string): Promise<string> {
  return contextOf(['--target', sessionId === 'scratchpad' ? 'quick-question' : 'scratchpad', `see ${await mentionOf(sessionId)}`]);
}

/** The context message text of `sessref prepare ...args`. */
async function contextOf(args: readonly string[]): Promise<string> {
  const preview = await json<{ messages: { content: { text: string }[] }[] }>(['prepare', '--root', root, ...args], { env });
  return preview.messages[1]!.content[0]!.text;
}

async function mentionOf(sessionId: string): Promise<string> {
  return (await ok(['mention', sessionId, '--root', root], { env })).trim();
}

function textOf(result: { messages: { content: { type: string; text?: string } }[] }): string {
  expect(result.messages).toHaveLength(1);
  return result.messages[0]!.content.text ?? '';
}

/** The MCP error a request failed with: its JSON-RPC code and sessref's code. */
async function failure(request: Promise<unknown>): Promise<{ code: number; sessref?: string }> {
  const error = await request.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ProtocolError);
  const { code, data } = error as ProtocolError;
  return { code, sessref: (data as { code?: string } | undefined)?.code };
}

describe('sessref mcp', () => {
  it('answers the 2025 handshake and the 2026-07-28 revision, with one prompt, completions and an empty tools/list', async () => {
    for (const modern of [false, true]) {
      const client = await connect([], modern);
      expect(client.getNegotiatedProtocolVersion()).toBe(modern ? '2026-07-28' : '2025-11-25');
      expect(client.getServerCapabilities()).toMatchObject({ prompts: {}, completions: {}, tools: {} });
      expect(client.getServerCapabilities()?.resources).toBeUndefined();
      const { prompts } = await client.listPrompts();
      expect(prompts.map((prompt) => [prompt.name, prompt.arguments?.map((argument) => [argument.name, argument.required])])).toEqual([
        ['ref', [['session', true], ['session2', false], ['session3', false], ['around', false]]],
      ]);
      expect((await client.listTools()).tools).toEqual([]);
    }
  });

  it("answers an older client's initialize with its own revision (Gemini CLI and Codex send 2025-06-18)", async () => {
    const { responses } = await rawSession([{ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'old', version: '1' } } }]);
    expect(responses.get(1)).toMatchObject({ result: { protocolVersion: '2025-06-18', serverInfo: { name: 'sessref' } } });
  });

  it('completes a session argument as the @ picker offers sessions: title matches, then content matches, each as its mention', async () => {
    const client = await connect();
    const complete = async (value: string) => (await client.complete({ ref: { type: 'ref/prompt', name: 'ref' }, argument: { name: 'session', value } })).completion.values;
    expect(await complete('flaky')).toEqual([await mentionOf('flaky-ci')]);
    // "price fetch" is in flaky-ci's conversation only, never in a title.
    expect(await complete('price fetch')).toEqual([await mentionOf('flaky-ci')]);
    const everything = await complete('');
    expect(everything).toContain(await mentionOf(CLAUDE_ID));
    expect(everything).toHaveLength(9);
    expect(await complete('x'.repeat(100_000))).toEqual([]);
    expect(await complete('a\0b')).toEqual([]);
  });

  it("gets a dsh session's snapshot exactly as a dsh target's context message carries it, by id, mention or URI", async () => {
    const client = await connect([], true);
    const expected = await dshContext('flaky-ci');
    expect(expected).toContain(REFERENCED_SESSIONS_WARNING);
    for (const session of ['flaky-ci', await mentionOf('flaky-ci'), encodeSessionReferenceUri('flaky-ci')]) {
      const result = await client.getPrompt({ name: 'ref', arguments: { session } });
      expect(textOf(result)).toBe(expected);
    }
  });

  it("gets another agent's session and several at once, under the per-source budget --max-bytes sets", async () => {
    const client = await connect(['--max-bytes', '3000']);
    const claude = await mentionOf(CLAUDE_ID);
    const both = `${await mentionOf('research-log')} and ${claude}`;
    const result = await client.getPrompt({ name: 'ref', arguments: { session: 'research-log', session2: claude, session3: '' } });
    expect(textOf(result)).toBe(await contextOf(['--target', 'scratchpad', '--max-bytes', '3000', both]));
    expect(textOf(result)).toContain(CLAUDE_ID);
    expect(result.description).toMatch(/^Snapshot of "Long research log/);
  });

  it('refuses unknown, malformed and hostile sessions as MCP errors carrying sessref codes', async () => {
    const client = await connect();
    const get = (session: string) => client.getPrompt({ name: 'ref', arguments: { session } });
    expect(await failure(get('no-such-session'))).toEqual({ code: -32602, sessref: 'SESSION_REFERENCE_READ_FAILED' });
    expect(await failure(get('claude-code:no-such-session'))).toMatchObject({ code: -32602 });
    expect(await failure(get('dsh-session:!!!'))).toEqual({ code: -32602, sessref: 'SESSION_REFERENCE_INVALID_REFERENCE' });
    expect(await failure(get('x'.repeat(100_000)))).toEqual({ code: -32602, sessref: 'SESSION_REFERENCE_INVALID_REFERENCE' });
    expect(await failure(get('flaky-ci\0'))).toEqual({ code: -32602, sessref: 'SESSION_REFERENCE_INVALID_REFERENCE' });
    expect(await failure(get(' '))).toEqual({ code: -32602, sessref: 'SESSION_REFERENCE_INVALID_REFERENCE' });
    expect(await failure(client.getPrompt({ name: 'ref', arguments: { session: 'flaky-ci', session2: 'flaky-ci', session3: 'nope' } }))).toMatchObject({ code: -32602 });
    // The server is still serving.
    expect(textOf(await get('flaky-ci'))).toContain('flaky-ci');
  });

  it('has no resources without --resources, and answers unknown methods as such', async () => {
    const { responses } = await rawSession([
      INITIALIZE,
      { id: 2, method: 'resources/list' },
      { id: 3, method: 'resources/read', params: { uri: encodeSessionReferenceUri('flaky-ci') } },
      { id: 4, method: 'sessions/read', params: { id: 'flaky-ci' } },
    ]);
    for (const id of [2, 3, 4]) expect(responses.get(id)).toMatchObject({ error: { code: -32601 } });
  });

  it('lists every session as a resource under --resources, page by page, with sizes and times, and reads each', async () => {
    const { responses } = await rawSession([INITIALIZE, { id: 2, method: 'resources/list' }, { id: 3, method: 'resources/list', params: { cursor: '6' } }], { args: ['--resources', '--limit', '3'] });
    expect(responses.get(2)).toMatchObject({ result: { nextCursor: '3', resources: [{ name: 'quick-question' }, { name: 'scratchpad' }, { name: 'pasted-issue' }] } });
    expect(responses.get(3)).toMatchObject({ result: { resources: [{ name: 'billing-schema' }, { name: 'flaky-ci' }, { name: CLAUDE_ID }] } });
    expect(responses.get(3)).not.toHaveProperty('result.nextCursor');
    const client = await connect(['--resources', '--limit', '3'], true);
    // Without a cursor the SDK's client follows every nextCursor itself.
    const listed = (await client.listResources()).resources;
    expect(listed.map((resource) => resource.name)).toEqual([...(await json<{ sessionId: string }[]>(['list', '--root', root], { env })).map((row) => row.sessionId)]);
    for (const resource of listed) {
      const { contents } = await client.readResource({ uri: resource.uri });
      const text = (contents[0] as { text: string }).text;
      expect(text).toBe(await dshContext(resource.name));
      expect(resource.size).toBe(utf8Length(text));
      if (resource.name !== CLAUDE_ID) expect(resource.annotations?.lastModified).toMatch(/^\d{4}-\d\d-\d\dT/);
    }
    expect((await client.listResourceTemplates()).resourceTemplates).toEqual([]);
    expect(await failure(client.listResources({ cursor: 'not-ours' }))).toMatchObject({ code: -32602 });
  });

  it('under --resources, announces a changed listing when a session is created, and nothing while nothing changes', async () => {
    const changing = await emptyRoot();
    await ok(['seed', '--root', changing]);
    const client = new Client({ name: 'sessref-test', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--root', changing, '--resources'], env, stderr: 'pipe' }));
    clients.push(client);
    let notices = 0;
    client.setNotificationHandler('notifications/resources/list_changed', () => void (notices += 1));
    const before = (await client.listResources()).resources.length;
    // Two comparisons of unchanged stamps (one every 2 s) announce nothing.
    await new Promise((resolve) => setTimeout(resolve, 4_500));
    expect(notices).toBe(0);
    await ok(['new', '--root', changing, '--title', 'Created while listed'], { env });
    await expect.poll(() => notices).toBeGreaterThan(0);
    expect((await client.listResources()).resources).toHaveLength(before + 1);
  });

  it('says in one short line why it ignored JSON that is not JSON-RPC, and keeps answering', async () => {
    const { responses, stderr, code } = await rawSession([INITIALIZE, '{"foo":1}', '5', { id: 2, method: 'tools/list' }]);
    expect(responses.get(2)).toMatchObject({ result: { tools: [] } });
    expect(code).toBe(0);
    const prefix = 'sessref mcp: ignored a message that is not JSON-RPC: ';
    const lines = stderr.trimEnd().split('\n');
    expect(lines).toEqual([
      expect.stringMatching(/^sessref mcp: ignored a message that is not JSON-RPC: jsonrpc: expected "2\.0"; id: expected string, received undefined; /),
      `${prefix}expected object, received number`,
    ]);
    // Not zod's issue tree, escaped onto the line: a bounded reason in words.
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(prefix.length + 200);
    expect(stderr).not.toMatch(/\\n|"code"|[{[]/);
  });

  it('answers a batch with Invalid Request (id null), as JSON-RPC says for a server without batches, and keeps answering', async () => {
    const batch = JSON.stringify([{ jsonrpc: '2.0', id: 2, method: 'tools/list' }]);
    const { responses, unidentified, stderr, code } = await rawSession([INITIALIZE, batch, '[]', ' [1, 2]\r', { id: 3, method: 'tools/list' }], { waitFor: 5 });
    const refusal = { jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringMatching(/^Invalid Request: JSON-RPC batches are not supported/) } };
    expect(unidentified).toEqual([refusal, refusal, refusal]);
    // Nothing inside the batch was run, and the next request is answered.
    expect(responses.has(2)).toBe(false);
    expect(responses.get(3)).toMatchObject({ result: { tools: [] } });
    expect(code).toBe(0);
    expect(stderr).toBe('');
  });

  it('survives deep JSON and lines that are not JSON, drops an oversized line, and a client that leaves mid-request', async () => {
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    const hostile = await rawSession([INITIALIZE, `{"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{"name":"ref","arguments":{"session":${deep}}}}`, 'not json', { id: 3, method: 'tools/list' }]);
    // Refused (the SDK's schema check gives up on it as an internal error), and the next request is answered.
    expect(hostile.responses.get(2)).toHaveProperty('error.code');
    expect(hostile.responses.get(3)).toMatchObject({ result: { tools: [] } });
    expect(hostile.code).toBe(0);

    const oversized = await rawSession([INITIALIZE, `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"pad":"${'x'.repeat(2 * 1024 * 1024)}"}}`, { id: 3, method: 'tools/list' }]);
    expect(oversized.code).toBe(0);
    expect(oversized.responses.has(3)).toBe(false);
    expect(oversized.stderr).not.toMatch(/\n\s+at /);

    // Asked for the longest session, then gone before the answer: the server exits cleanly.
    const left = await rawSession([INITIALIZE, { id: 2, method: 'prompts/get', params: { name: 'ref', arguments: { session: 'research-log' } } }], { waitFor: 1 });
    expect(left.code).toBe(0);
    expect(left.stderr).not.toMatch(/\n\s+at /);
  });

  it('answers its first completion without ajv or node:crypto loaded, neither of which it uses', async () => {
    const probe = join(await tempDir(), 'builtins.cjs');
    writeFileSync(probe, "process.on('exit', () => process.stderr.write(`builtins ${JSON.stringify(process.moduleLoadList)}\\n`));\n");
    const complete = { id: 2, method: 'completion/complete', params: { ref: { type: 'ref/prompt', name: 'ref' }, argument: { name: 'session', value: 'o' } } };
    // A first start reads each log's head to keep its header, with a digest of it; a start over kept headers is what this holds.
    await rawSession([INITIALIZE, complete]);
    const { responses, stderr } = await rawSession([INITIALIZE, complete], { env: { NODE_OPTIONS: `--require ${probe}` } });
    expect(responses.get(2)).toHaveProperty('result.completion.values');
    const loaded = JSON.parse(/^builtins (.*)$/m.exec(stderr)?.[1] ?? '[]') as string[];
    expect(loaded).toContain('NativeModule stream');
    expect(loaded.filter((name) => /^NativeModule (crypto|internal\/crypto\/)/.test(name))).toEqual([]);
    // The SDK's validator (ajv on Node) is what a form elicitation would need: sessref's bundle replaces it (scripts/bundle-cli.mjs).
    const bundle = join(BIN, '..');
    expect(readdirSync(bundle).filter((file) => /\bajv\b/i.test(readFileSync(join(bundle, file), 'utf8')))).toEqual([]);
  });

  it('generates no code to validate its messages: zod parses them without compiling a parser first (see zod-jitless.ts)', async () => {
    const probe = join(await tempDir(), 'code-generation.cjs');
    writeFileSync(
      probe,
      [
        'let generated = 0;',
        'const count = (target, args, newTarget) => (generated += 1, Reflect.construct(target, args, newTarget ?? target));',
        'globalThis.Function = new Proxy(Function, { construct: count, apply: (target, _this, args) => count(target, args) });',
        "process.on('exit', () => process.stderr.write(`generated ${generated}\\n`));",
      ].join('\n'),
    );
    const complete = { id: 2, method: 'completion/complete', params: { ref: { type: 'ref/prompt', name: 'ref' }, argument: { name: 'session', value: 'o' } } };
    const { responses, stderr } = await rawSession([INITIALIZE, complete, { id: 3, method: 'prompts/list' }], { env: { NODE_OPTIONS: `--require ${probe}` } });
    expect(responses.get(2)).toHaveProperty('result.completion.values');
    expect(responses.get(3)).toHaveProperty('result.prompts');
    expect(/^generated (\d+)$/m.exec(stderr)?.[1]).toBe('0');
  });
});

const INITIALIZE = { id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };

describe("sessref mcp over an agent's folder that cannot be read (#37)", () => {
  it('says once on stderr what each source could not read, keeps answering with everything else, never a crash', async () => {
    const home = await tempDir('sessref-mcp-loop-home-');
    const projects = join(home, '.claude', 'projects');
    mkdirSync(join(projects, '-work-app'), { recursive: true });
    copyFileSync(SAMPLE, join(projects, '-work-app', 'ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl'));
    symlinkSync(join(projects, '-loop'), join(projects, '-loop'));
    symlinkSync(join(home, '.codex'), join(home, '.codex'));
    const complete = (id: number) => ({ id, method: 'completion/complete', params: { ref: { type: 'ref/prompt', name: 'ref' }, argument: { name: 'session', value: '' } } });
    const { responses, stderr, code } = await rawSession([INITIALIZE, complete(2), complete(3), { id: 4, method: 'resources/list' }, { id: 5, method: 'resources/list' }], { args: ['--resources'], env: { HOME: home } });
    expect(code).toBe(0);
    for (const id of [2, 3]) expect((responses.get(id) as { result: { completion: { values: string[] } } }).result.completion.values).toContain(await mentionOf(CLAUDE_ID));
    expect((responses.get(4) as { result: { resources: { name: string }[] } }).result.resources.map((resource) => resource.name)).toContain(CLAUDE_ID);
    expect(stderr.trimEnd().split('\n')).toEqual([
      `sessref: note: Codex sessions skipped: ${join(home, '.codex')} cannot be read (ELOOP)`,
      'sessref mcp: SOURCE_SESSION_UNREADABLE: session "claude-code:-loop/": -loop/ cannot be searched (ELOOP): its Claude Code sessions are left out',
    ]);
  });
});

interface RawResult {
  responses: Map<number, unknown>;
  /** Responses without a numeric id (an error about a message whose id could not be known), in order. */
  unidentified: unknown[];
  code: number | null;
  stderr: string;
}

/**
 * Write `messages` (objects get `jsonrpc`, strings go as they are) one line
 * each to `sessref mcp`, wait for responses to the requests with ids, then
 * close stdin and wait for the exit; `waitFor` closes after that many answers.
 * `args` are more flags for `sessref mcp`, `env` more environment variables.
 */
function rawSession(messages: readonly (string | { id?: number; method: string; params?: unknown })[], options: { waitFor?: number; args?: readonly string[]; env?: Record<string, string> } = {}): Promise<RawResult> {
  const child = spawn(process.execPath, [BIN, 'mcp', '--root', root, ...(options.args ?? [])], { env: { ...env, ...options.env }, stdio: ['pipe', 'pipe', 'pipe'] });
  const expected = options.waitFor ?? messages.filter((message) => typeof message !== 'string' || /"id":\d/.test(message.slice(0, 40))).length;
  const responses = new Map<number, unknown>();
  const unidentified: unknown[] = [];
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  child.stdin.on('error', () => {}); // the server may have dropped the connection
  const done = () => child.stdin.end();
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
    for (let end = stdout.indexOf('\n'); end >= 0; end = stdout.indexOf('\n')) {
      const response = JSON.parse(stdout.slice(0, end)) as { id?: number };
      stdout = stdout.slice(end + 1);
      if (typeof response.id === 'number') responses.set(response.id, response);
      else unidentified.push(response);
      if (responses.size + unidentified.length >= expected) done();
    }
  });
  for (const message of messages) child.stdin.write(`${typeof message === 'string' ? message : JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  const timer = setTimeout(done, 15_000);
  return new Promise((resolve) => child.on('close', (code) => {
    clearTimeout(timer);
    resolve({ responses, unidentified, code, stderr });
  }));
}
