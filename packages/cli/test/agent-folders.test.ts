/**
 * A command that writes dsh sessions (`new`, `send`, `seed`) refuses a root
 * inside another agent's own folder (issue #37, item 4): Claude Code's
 * `~/.claude`, Codex's `$CODEX_HOME` or `~/.codex`, Gemini CLI's
 * `~/.gemini`, opencode's `~/.local/share/opencode`, Kilo's `~/.local/share/kilo`. Those are read in place
 * and never written; the refusal is `ROOT_IN_AGENT_HOME` (exit 1) with a
 * hint, before anything is read or written. So does the inspector's new
 * session and send. Reading commands still take such a root.
 */
import { mkdirSync, symlinkSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, afterAll, describe, expect, it, vi } from 'vitest';
import { Engine } from '../src/engine/engine.js';
import { startServer } from '../src/server/server.js';
import { httpRequest, postJson } from './inspector/fixture.js';
import { emptyRoot, expectFailure, ok, removeTemps, requireBuild, sessref, tempDir } from './support';

let home: string;
let codexHome: string;
let env: Record<string, string>;

/** Every file and folder under `path`, sorted: what must not change. */
async function tree(path: string): Promise<string[]> {
  return (await readdir(path, { recursive: true })).sort();
}

beforeAll(async () => {
  requireBuild();
  home = await tempDir('sessref-agent-folders-home-');
  codexHome = await tempDir('sessref-agent-folders-codex-');
  for (const folder of ['.claude/projects', '.codex/sessions', '.gemini/tmp', '.local/share/opencode', '.local/share/kilo']) mkdirSync(join(home, folder), { recursive: true });
  env = { HOME: home };
});

afterAll(removeTemps);

describe('a root inside an agent folder', () => {
  const FOLDERS: readonly (readonly [string, string])[] = [
    ['.claude', 'Claude Code'],
    ['.claude/projects', 'Claude Code'],
    ['.codex', 'Codex'],
    ['.codex/sessions', 'Codex'],
    ['.gemini', 'Gemini CLI'],
    ['.gemini/tmp', 'Gemini CLI'],
    ['.local/share/opencode', 'opencode'],
    ['.local/share/kilo', 'Kilo'],
  ];

  it.each(FOLDERS)('is refused by new, send and seed: ~/%s', async (folder, agent) => {
    const root = join(home, folder);
    const before = await tree(home);
    for (const args of [['new'], ['send', '--target', 'anything', 'hello'], ['seed']]) {
      const message = expectFailure(await sessref([...args, '--root', root], { env }), 1, 'ROOT_IN_AGENT_HOME');
      expect(message).toContain(`${agent}'s folder`);
      expect(message).toContain(root);
    }
    expect(await tree(home)).toEqual(before);
  });

  it("is refused under $CODEX_HOME, through $SESSREF_ROOT, through a link, and when it does not exist yet", async () => {
    const withCodexHome = { ...env, CODEX_HOME: codexHome };
    expectFailure(await sessref(['new', '--root', codexHome], { env: withCodexHome }), 1, 'ROOT_IN_AGENT_HOME');
    // ~/.codex is still Codex's, whatever $CODEX_HOME says.
    expectFailure(await sessref(['new', '--root', join(home, '.codex')], { env: withCodexHome }), 1, 'ROOT_IN_AGENT_HOME');
    expectFailure(await sessref(['new'], { env: { ...env, SESSREF_ROOT: join(home, '.gemini') } }), 1, 'ROOT_IN_AGENT_HOME');
    const link = join(await tempDir('sessref-agent-folders-link-'), 'sessions');
    symlinkSync(join(home, '.codex', 'sessions'), link);
    expectFailure(await sessref(['new', '--root', link], { env }), 1, 'ROOT_IN_AGENT_HOME');
    expectFailure(await sessref(['seed', '--root', join(home, '.claude', 'not-yet')], { env }), 1, 'ROOT_IN_AGENT_HOME');
    expect(await tree(codexHome)).toEqual([]);
  });

  it('says what to do instead, in one line with its fix', async () => {
    const result = await sessref(['new', '--root', join(home, '.codex')], { env });
    expect(result.stderr).toMatch(/\(fix: name a dsh session root instead \(--root DIR or \$SESSREF_ROOT\), such as dsh's ~\/\.dsh\/sessions; Codex's own sessions are read where they are\)\n$/);
  });

  it('is still read by commands that only read', async () => {
    const listed = await sessref(['list', '--root', join(home, '.codex')], { env });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stderr).not.toContain('ROOT_IN_AGENT_HOME');
  });
});

it('a root beside the agent folders is written as before', async () => {
  const root = await emptyRoot();
  const beside = join(home, '.codex-notes');
  mkdirSync(beside);
  for (const at of [root, beside]) expect((await ok(['new', '--root', at, '--title', 'Fine'], { env })).trim()).toMatch(/\S/);
});

describe("the inspector over a root inside an agent's folder", () => {
  it('refuses a new session and a send with ROOT_IN_AGENT_HOME (400), writing nothing, and still lists', async () => {
    const codex = await tempDir('sessref-agent-folders-served-');
    const root = join(codex, 'sessions');
    mkdirSync(root);
    vi.stubEnv('CODEX_HOME', codex);
    const engine = await Engine.open({ root, indexFile: join(home, 'titles.json'), searchIndexFile: join(home, 'content.sqlite') });
    const server = await startServer(engine);
    try {
      for (const [path, body] of [
        ['/api/new', { title: 'Into Codex' }],
        ['/api/send', { target: 'anything', text: 'hello' }],
      ] as const) {
        const reply = await postJson(server, path, body);
        expect(reply.status, reply.text).toBe(400);
        expect(JSON.parse(reply.text)).toMatchObject({ error: { code: 'ROOT_IN_AGENT_HOME', message: expect.stringContaining("inside Codex's folder") } });
      }
      const listed = await httpRequest(server.port, { path: '/api/sessions', headers: { 'x-sessref-token': server.token } });
      expect(listed.status).toBe(200);
      expect(await tree(codex)).toEqual(['sessions']);
    } finally {
      await server.close();
      await engine.close();
      vi.unstubAllEnvs();
    }
  });
});
