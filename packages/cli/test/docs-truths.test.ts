/**
 * The docs say what is true (#26, item 9): the inspector's token lasts for the
 * launch (no "one-time token" anywhere a user reads); the README's headline
 * figures are docs/benchmarks.md's, with the revision and the command they
 * were measured with; the server logs exactly what docs/inspector.md says;
 * what `npm ci` prints is explained or avoided; and every file of this
 * repository a page names is there (#32 item 5).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { truncate } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as core from '@sessref/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS } from '../src/commands/table.js';
import { Engine } from '../src/engine/engine.js';
import { commandHelp, mainHelp } from '../src/help.js';
import { startServer, type RunningServer } from '../src/server/server.js';
import { signInPage } from '../src/server/static.js';
import { TARGET, WEBAPP, httpRequest, removeDir, seedRoot, tempDir } from './inspector/fixture.js';
import { logPath } from './support';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const read = (path: string) => readFileSync(join(REPO, path), 'utf8');
const README = read('README.md');
const BENCHMARKS = read('docs/benchmarks.md');
const INSPECTOR = read('docs/inspector.md');

/** Every page a user reads: the READMEs (the packages', the benchmarks' and the end-to-end suites') and docs/*.md. */
function pages(): [string, string][] {
  const packages = readdirSync(join(REPO, 'packages')).map((name) => `packages/${name}/README.md`);
  const docs = readdirSync(join(REPO, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`);
  return ['README.md', ...packages, 'bench/README.md', 'e2e/dsh-app/README.md', 'e2e/agents/README.md', ...docs].flatMap((path) => {
    try {
      return [[path, read(path)] as [string, string]];
    } catch {
      return [];
    }
  });
}

/** The one match of `pattern` in `text`, its groups; fails when there is none. */
function one(text: string, pattern: RegExp, what: string): string[] {
  const match = pattern.exec(text);
  expect(match, `${what} in docs/benchmarks.md`).not.toBeNull();
  return match!.slice(1);
}

/**
 * The files of this repository a page names: paths in backticks from one of
 * its top folders (another project's paths are written with that project's
 * name first, `gemini-cli/packages/…`), and relative link targets. Build
 * outputs and placeholders (`<agent>`, `*`) are not files to check.
 */
function namedFiles(path: string, text: string): string[] {
  const quoted = [...text.matchAll(/`((?:packages|docs|bench|e2e|scripts)\/[\w./-]+)`/g)].map((match) => match[1]!);
  // A link to a file has a folder or an extension; `@[label](uri)` in prose is the mention syntax, not a link.
  const linked = [...text.matchAll(/\]\(([^)#\s:]+)(?:#[^)]*)?\)/g)].map((match) => match[1]!).filter((target) => /[./]/.test(target)).map((target) => join(dirname(path), target));
  return [...quoted, ...linked].filter((file) => !/(?:^|\/)(?:dist|web-dist|artifacts)(?:\/|$)/.test(file));
}

describe('the pages', () => {
  it('name only files that are there', () => {
    const missing = pages().flatMap(([path, text]) => namedFiles(path, text).filter((file) => !existsSync(join(REPO, file))).map((file) => `${path}: ${file}`));
    expect(missing).toEqual([]);
  });
});

describe("the core's public surface", () => {
  it('is at most 45 values, each named in the core README', () => {
    const names = Object.keys(core);
    expect(names.length).toBeLessThanOrEqual(45);
    const readme = read('packages/core/README.md');
    expect(names.filter((name) => !readme.includes(`\`${name}`))).toEqual([]);
  });
});

describe('the inspector token', () => {
  it('is never called one-time: not in the docs, the help or the sign-in page', () => {
    const wrong = /one-time token|single-use token|token (?:is )?(?:used|valid) (?:only )?once/i;
    for (const [path, text] of pages()) expect(text, path).not.toMatch(wrong);
    expect(mainHelp()).not.toMatch(wrong);
    for (const command of COMMANDS) expect(commandHelp(command), command.name).not.toMatch(wrong);
    const page = signInPage().body.toString();
    expect(page).not.toMatch(wrong);
    expect(page).toMatch(/one per launch, valid until the server stops/);
  });
});

describe("the README's headline figures", () => {
  it("are docs/benchmarks.md's, to the digit", () => {
    const [picker, official, ours] = one(BENCHMARKS, /\| (\d+)x at 1000 sessions \(official (\d+) ms, sessref ([\d.]+) ms/, 'the title index target');
    expect(README).toContain(`answers in ${ours} ms instead of\n  ${official} ms (${picker}x)`);
    const [warm] = one(BENCHMARKS, /warm "migration" \/ empty query: ([\d.]+) ms/, 'the 10,000-session target');
    expect(README).toContain(`warm picker query takes ${warm} ms`);
    const [speedUp, floor] = one(BENCHMARKS, /^\| 4000 \|[^|]+\|[^|]+\|[^|]+\| ([\d.]+x) \|[^|]+\| ([\d.]+x) \|$/m, 'the N = 4000 row');
    expect(README).toMatch(new RegExp(`prepared ${speedUp} faster[^;]*in ${floor!.replace('.', '\\.')} the CPU time of the host's own\\s+read`));
    expect(README).not.toMatch(/within 1\.0x/);
    const [parsing] = one(BENCHMARKS, /^\| sessref \| [^|]+ \| ([\d.]+ MB\/s)/m, 'the parsing row');
    const [theirs] = one(BENCHMARKS, /^\| official \| [^|]+ \| ([\d.]+ MB\/s)/m, 'the official parsing row');
    expect(README).toContain(`mention parsing runs at ${parsing} (official: ${theirs} in the same run)`);
    const [build] = one(BENCHMARKS, /\| build 10,000 sessions <= 60 s \| ([\d.]+ s): /, 'the search index build target');
    const [at10k] = one(BENCHMARKS, /p50 <= 15 ms at 10,000, [^|]+\| worst of the 8 series ([\d.]+ ms): /, 'the 10,000-session query target');
    const [at100k] = one(BENCHMARKS, /p50 <= 50 ms at 100,000, [^|]+\| worst of the 8 series ([\d.]+ ms): /, 'the 100,000-session query target');
    expect(README.replace(/\s+/g, ' ')).toContain(`10,000 sessions indexed in ${build}, warm queries within ${at10k} there and ${at100k} at 100,000`);
    const [listed] = one(BENCHMARKS, /listing again, folders watched \| ([\d.]+ ms) wall/, 'the foreign listing target');
    expect(README.replace(/\s+/g, ' ')).toContain(`other agents' sessions listed in ${listed} over 10,000 transcripts`);
    const [version] = one(BENCHMARKS, /^\| `sessref --version` \|[^|]+\|[^|]+\| ([\d.]+x) /m, 'the fresh --version row');
    const [damaged] = one(BENCHMARKS, /the clean root's \(ratio over ratio\): ([\d.]+x), /, 'the damaged-root row');
    const [demoList, bigList] = [...BENCHMARKS.matchAll(/^\| `sessref list --root …` \|[^|]+\|[^|]+\| ([\d.]+x) /gm)].map((match) => match[1]);
    const fresh = `\`sessref --version\` costs ${version} Node's own start, and one damaged log among 2,000 sessions costs \`list\` ${damaged} the clean root's time`;
    expect(README.replace(/\s+/g, ' ')).toContain(fresh);
    expect(README.replace(/\s+/g, ' ')).toContain(`\`list\` costs ${demoList} Node's start on the demo root and ${bigList} over 2,000 sessions`);
  });

  it('name the revision and the command that measured them, as docs/benchmarks.md records them', () => {
    const [revision] = one(BENCHMARKS, /^- Revision: (.+)$/m, 'the revision');
    const [command] = one(BENCHMARKS, /```sh\n(npm run [a-z:]+)/, 'the command');
    expect(README.replace(/\s+/g, ' ')).toContain(`one run of \`${command}\` at revision ${revision}`);
  });
});

describe('what the inspector server logs', () => {
  let root: string;
  let engine: Engine;
  let server: RunningServer;
  const logged: string[] = [];

  beforeAll(async () => {
    root = await tempDir('docs-truths');
    await seedRoot(root);
    await truncate(logPath(root, 'flaky-ci', WEBAPP), 40);
    engine = await Engine.open({ root });
    server = await startServer(engine, { webRoot: root, log: (line) => logged.push(line) });
  });

  afterAll(async () => {
    await server?.close();
    await engine?.close();
    await removeDir(root);
  });

  const post = (path: string, body: unknown, token = server.token) =>
    httpRequest(server.port, { method: 'POST', path, headers: { 'content-type': 'application/json', 'x-sessref-token': token }, body: JSON.stringify(body) });

  it('is one METHOD PATH STATUS CODE line per 5xx answer, and nothing for a refused request, as docs/inspector.md says', async () => {
    expect((await post('/api/messages', { sessionId: TARGET }, 'wrong')).status).toBe(403);
    expect((await post('/api/messages', { sessionId: 'nope' })).status).toBe(404);
    expect((await post('/api/messages', { sessionId: TARGET, extra: 'x'.repeat(2 * 1024 * 1024) })).status).toBe(413);
    expect(logged).toEqual([]);
    const damaged = await post('/api/messages', { sessionId: 'flaky-ci' });
    expect(damaged.status).toBe(502);
    const code = (JSON.parse(damaged.text) as { error: { code: string } }).error.code;
    expect(logged).toEqual([`POST /api/messages 502 ${code}`]);
    const documented = INSPECTOR.replace(/\s+/g, ' ');
    expect(documented).toContain('one line per request it answers with a 5xx status');
    expect(documented).toContain('`METHOD PATH STATUS CODE`');
    expect(documented).toContain('no line for a refused request (4xx)');
  });
});

describe('npm ci', () => {
  it('runs no install script npm 11 would warn about: each is approved in package.json', () => {
    const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, { hasInstallScript?: boolean }> };
    const approved = (JSON.parse(read('package.json')) as { allowScripts?: Record<string, boolean> }).allowScripts ?? {};
    const withScripts = Object.entries(lock.packages)
      .filter(([path, entry]) => entry.hasInstallScript === true && path.includes('node_modules/'))
      .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length));
    expect(withScripts.length).toBeGreaterThan(0);
    for (const name of withScripts) expect(approved[name], name).toBe(true);
  });

  it('has no deprecated dependency, and the README explains the engine warnings of a Node 20 install', () => {
    const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, { deprecated?: string }> };
    expect(Object.entries(lock.packages).filter(([, entry]) => entry.deprecated !== undefined).map(([path]) => path)).toEqual([]);
    expect(README).toMatch(/Under Node 20, `npm ci` prints `npm warn EBADENGINE`/);
  });
});
