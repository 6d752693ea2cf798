/**
 * The documented install, as a user outside this repository makes it: the
 * packed CLI tarball installed globally by npm into an empty home, with the
 * registry unreachable and npm's cache empty, then each MCP client's setup
 * line started from an empty project and driven by the MCP SDK's own client.
 * Runs where `npm` is on PATH; the packing needs the CLI's bundle and web
 * build (`npm run build`).
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPENCODE_ENTRY, SETUP_COMMANDS } from '../src/mcp/setup.js';
import { buildWeb } from './inspector/fixture.js';
import { NO_DSH_HOME, emptyRoot, finished, ok, removeTemps, requireBuild, tempDir } from './support';

const REPO = fileURLToPath(new URL('../../..', import.meta.url));
const hasNpm = spawnSync('npm', ['--version']).status === 0;
/** The machine's own Node when it is older than sessref needs (a Node 20 in /usr/bin, say): a user's first Node. */
const OLDER_NODE = ['/usr/bin/node', '/usr/local/bin/node'].find((node) => {
  const version = spawnSync(node, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout?.trim().split('.').map(Number);
  return version !== undefined && version.length === 3 && (version[0]! < 22 || (version[0] === 22 && version[1]! < 15));
});
/** A registry nothing listens on: any lookup fails at once. */
const NO_REGISTRY = 'http://127.0.0.1:9';

let env: Record<string, string>;
let project: string;
let root: string;

/** npm with the user's environment: the unreachable registry, the empty cache, the global prefix in the home. */
function npm(args: readonly string[]): string {
  return execFileSync('npm', args, { cwd: project, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

beforeAll(async () => {
  requireBuild();
  const home = await tempDir('sessref-install-home-');
  const prefix = join(home, '.npm-global');
  project = await tempDir('sessref-install-project-');
  root = await emptyRoot();
  await ok(['seed', '--root', root]);
  // The Node running the tests (22) first, as on a machine where the user installed it; then npm's global bin.
  env = {
    PATH: [join(prefix, 'bin'), dirname(process.execPath), process.env.PATH ?? ''].join(delimiter),
    HOME: home,
    npm_config_registry: NO_REGISTRY,
    npm_config_cache: join(home, '.npm'),
    npm_config_prefix: prefix,
    npm_config_update_notifier: 'false',
    DSH_HOME: NO_DSH_HOME,
    SESSREF_ROOT: root,
    NO_COLOR: '1',
  };
  // The tarball carries the inspector's page: a clone where `npm test` ran has the bundle but not the page, so build it as `npm run build` does.
  const webDist = join(REPO, 'packages/cli/web-dist');
  if (!existsSync(join(webDist, 'index.html'))) await buildWeb(webDist);
  const packed = join(await tempDir('sessref-install-tarball-'), 'out');
  execFileSync(process.execPath, [join(REPO, 'scripts/pack.mjs'), '--out', packed, 'packages/cli'], { stdio: 'ignore' });
  mkdirSync(project, { recursive: true });
  writeFileSync(join(project, 'package.json'), '{ "name": "a-user-project", "private": true }\n');
  npm(['install', '--global', '--offline', '--no-audit', '--no-fund', resolve(packed, 'sessref-cli-0.1.0.tgz')]);
}, 90_000);

afterAll(removeTemps);

/** What a client starts for sessref: a command, its arguments, and variables it sets beside the user's. */
interface Launch {
  command: string;
  args: readonly string[];
  env: Record<string, string>;
}

/**
 * What each client's setup line has it start, read as that client reads the
 * line: `claude mcp add` passes what follows `--`; Gemini CLI's `mcp add`
 * (yargs) keeps no `--flag` for the server and takes `-e K=V` as variables;
 * Qwen Code's (yargs too) takes `--scope project` as its own and passes the
 * flags it does not know to the server; VS Code and opencode take JSON.
 */
function launches(): Record<string, Launch> {
  const [claude, gemini, qwen, code] = SETUP_COMMANDS;
  const vscode = JSON.parse(/'(.*)'/.exec(code!)![1]!) as { command: string; args: string[] };
  const [geminiCommand, ...geminiArgs] = gemini!.replace('gemini mcp add sessref ', '').replace(/ -e \S+/g, '').split(' ').filter((word) => !word.startsWith('--'));
  const [claudeCommand, ...claudeArgs] = claude!.split(' -- ')[1]!.split(' ');
  const [qwenCommand, ...qwenArgs] = qwen!.replace('qwen mcp add --scope project sessref ', '').split(' ');
  const [opencodeCommand, ...opencodeArgs] = (JSON.parse(OPENCODE_ENTRY) as { sessref: { command: string[] } }).sessref.command;
  return {
    'claude mcp add': { command: claudeCommand!, args: claudeArgs, env: {} },
    'gemini mcp add': { command: geminiCommand!, args: geminiArgs, env: Object.fromEntries([...gemini!.matchAll(/ -e (\w+)=(\S+)/g)].map(([, name, value]) => [name!, value!])) },
    'qwen mcp add': { command: qwenCommand!, args: qwenArgs, env: {} },
    'code --add-mcp': { command: vscode.command, args: vscode.args, env: {} },
    opencode: { command: opencodeCommand!, args: opencodeArgs, env: {} },
  };
}

describe.skipIf(!hasNpm)('the documented install, with no registry', () => {
  it('puts sessref on PATH from the packed tarball alone', () => {
    expect(execFileSync('sessref', ['--version'], { cwd: project, env, encoding: 'utf8' })).toBe('sessref 0.1.0\n');
  });

  it.skipIf(OLDER_NODE === undefined)('on an older Node first on PATH, says exactly which Node to install', () => {
    const run = spawnSync('sessref', ['--version'], { cwd: project, env: { ...env, PATH: [join(env.npm_config_prefix!, 'bin'), dirname(OLDER_NODE!)].join(delimiter) }, encoding: 'utf8' });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/^error NODE_VERSION: sessref needs Node\.js 22\.15 or newer, this is v\d+\.\d+\.\d+ \(fix: install Node\.js 22 \(https:\/\/nodejs\.org, or `nvm install 22`\) and run sessref with it first on PATH; .+\)\n$/);
  });

  it.each(Object.entries(launches()))("starts the MCP server %s's entry names, and a client gets a snapshot from it", async (_client, launch) => {
    const client = new Client({ name: 'sessref-install-test', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: launch.command, args: [...launch.args], cwd: project, env: { ...env, ...launch.env }, stderr: 'pipe' }));
    try {
      const { prompts } = await client.listPrompts();
      expect(prompts.map((prompt) => prompt.name)).toEqual(['ref']);
      const result = await client.getPrompt({ name: 'ref', arguments: { session: 'flaky-ci' } });
      expect(result.messages[0]?.content).toMatchObject({ type: 'text', text: expect.stringContaining('<referenced-sessions>') as unknown });
    } finally {
      await client.close();
    }
  });

  it("never runs a stranger's package named sessref when sessref is not installed, whichever client starts it", async () => {
    npm(['uninstall', '--global', '@sessref/cli']);
    const registry = await strangersRegistry();
    try {
      for (const [client, launch] of Object.entries(launches())) {
        // Without a terminal, as a client starts it: a plain npx would install and run the stranger without asking.
        const run = await finished(spawn(launch.command, launch.args, { cwd: project, env: { ...env, ...launch.env, npm_config_registry: registry.url }, stdio: ['ignore', 'pipe', 'pipe'] }));
        expect(run.code, `${client}: ${run.stderr}`).not.toBe(0);
        expect(existsSync(registry.ranMarker), client).toBe(false);
      }
    } finally {
      registry.server.close();
    }
  });
});

/**
 * A registry on 127.0.0.1 that serves one package, `sessref`, whose binary
 * leaves a marker file: what anyone could publish under that unscoped name.
 */
async function strangersRegistry(): Promise<{ url: string; ranMarker: string; server: Server }> {
  const dir = await tempDir('sessref-stranger-');
  const ranMarker = join(dir, 'ran');
  mkdirSync(join(dir, 'package'));
  writeFileSync(join(dir, 'package', 'package.json'), JSON.stringify({ name: 'sessref', version: '9.9.9', bin: { sessref: 'bin.js' } }));
  writeFileSync(join(dir, 'package', 'bin.js'), `#!/usr/bin/env node\nrequire('fs').writeFileSync(${JSON.stringify(ranMarker)}, '')\n`);
  const tarball = readFileSync(join(dir, execFileSync('npm', ['pack', '--pack-destination', dir], { cwd: join(dir, 'package'), env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()));
  const server = createServer((request, response) => {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    if (request.url === '/sessref.tgz') return void response.end(tarball);
    const version = { name: 'sessref', version: '9.9.9', bin: { sessref: 'bin.js' }, dist: { tarball: `${url}/sessref.tgz` } };
    if (request.url === '/sessref') return void response.end(JSON.stringify({ name: 'sessref', 'dist-tags': { latest: '9.9.9' }, versions: { '9.9.9': version } }));
    response.statusCode = 404;
    response.end('{}');
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, ranMarker, server };
}
