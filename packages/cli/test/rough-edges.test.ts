/**
 * The edges of the command line: a reader that stops early or reads slowly, errors under
 * `--json`, a busy port, and the committed `sessref` bin stub that npm links
 * at install time (it runs the build, or says to build first).
 */
import { spawn } from 'node:child_process';
import { copyFile, mkdir, truncate, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emptyRoot, expectFailure, finished, logPath, ok, removeTemps, requireBuild, sessref, tempDir, withoutRootLine, type RunResult } from './support';

const STUB = fileURLToPath(new URL('../bin/sessref.js', import.meta.url));
let root: string;

beforeAll(async () => {
  requireBuild();
  root = await emptyRoot('sessref-edges-');
  await ok(['seed', '--root', root]);
});

afterAll(removeTemps);

/** Run a shell pipeline with pipefail, the built binary as `sessref`. */
function pipeline(script: string, env: Record<string, string> = {}): Promise<RunResult> {
  const bin = fileURLToPath(new URL('../dist/bin.js', import.meta.url));
  return finished(
    spawn('bash', ['-c', `set -o pipefail; sessref() { "${process.execPath}" "${bin}" "$@"; }; ${script}`], {
      env: { ...process.env, NO_COLOR: '1', SESSREF_ROOT: root, SESSREF_CACHE_DIR: join(root, '..', 'cache'), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
}

describe('a reader that stops early', () => {
  it('`sessref show X | head -1` exits quietly, whatever the size of the output', async () => {
    for (const script of ['sessref show research-log | head -1', 'sessref show research-log --json | head -c 10', 'sessref list | head -1']) {
      const result = await pipeline(script);
      expect(result, script).toMatchObject({ code: 0, stderr: expect.not.stringMatching(/EPIPE|Error|at /) });
      expect(result.stdout.length).toBeGreaterThan(0);
    }
  });
});

describe('a reader that is slow', () => {
  it('gets every byte: the process ends only once its output has left it', async () => {
    // Some 700 KB of JSON fill the pipe many times over while the reader sleeps; a cut output would not parse.
    const parse = `node -e "JSON.parse(require('node:fs').readFileSync(0, 'utf8'))"`;
    const result = await pipeline(`sessref show research-log --json | (sleep 0.3; cat) | ${parse} && sessref show research-log --json | wc -c`);
    expect(result).toMatchObject({ code: 0 });
    expect(Number(result.stdout.trim())).toBeGreaterThan(256 * 1024);
  });
});

describe('errors under --json', () => {
  it('are one JSON object on stderr with the same code and exit status as the text line', async () => {
    const damaged = await emptyRoot();
    await ok(['seed', '--root', damaged]);
    await truncate(logPath(damaged, 'flaky-ci', '/home/dev/webapp'), 20);
    const cases: [string[], number, string][] = [
      [['list', '--verbose'], 1, 'USAGE'],
      [['frobnicate'], 1, 'USAGE'],
      [['show', 'nope', '--root', root], 1, 'SESSION_QUERY_SESSION_NOT_FOUND'],
      [['list', '--root', join(root, 'missing')], 1, 'NO_ROOT'],
      [['prepare', '--root', root, '--target', 'scratchpad', '@[x](dsh-session:zz)'], 1, 'SESSION_REFERENCE_INVALID_REFERENCE'],
      [['show', 'flaky-ci', '--root', damaged], 2, 'SESSION_LOG_CORRUPT'],
    ];
    for (const [args, exit, code] of cases) {
      const text = expectFailure(await sessref(args), exit, code);
      const result = await sessref([...args, '--json']);
      expect(result.code, args.join(' ')).toBe(exit);
      expect(result.stdout).toBe('');
      const lines = withoutRootLine(result.stderr).split('\n');
      expect(lines, result.stderr).toHaveLength(2);
      expect(JSON.parse(lines[0]!)).toEqual({ error: { code, message: text, hint: expect.any(String), exitCode: exit } });
    }
  });

  it('--debug under --json adds the stack inside the object', async () => {
    const result = await sessref(['show', 'nope', '--root', root, '--json', '--debug']);
    expect(result.code).toBe(1);
    const { error } = JSON.parse(result.stderr) as { error: { code: string; stack: string } };
    expect(error.code).toBe('SESSION_QUERY_SESSION_NOT_FOUND');
    expect(error.stack).toMatch(/\n\s+at /);
  });
});

describe('a port in use', () => {
  it('is PORT_IN_USE, not a usage error, and says how to pass --port 0 through npm start', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const result = await sessref(['serve', '--root', root, '--port', String(port)]);
      expect(expectFailure(result, 1, 'PORT_IN_USE')).toBe(`port ${port} on 127.0.0.1 is in use`);
      expect(withoutRootLine(result.stderr)).toContain('(fix: pass --port N, or --port 0 for a free one; through npm start: npm start -- --port 0)');
    } finally {
      blocker.close();
    }
  });
});

describe('the committed bin stub', () => {
  it('runs the built sessref', async () => {
    const direct = await sessref(['--help']);
    const viaStub = await finished(spawn(process.execPath, [STUB, '--help'], { env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] }));
    expect(viaStub.code).toBe(0);
    expect(viaStub.stdout.split('\n').slice(0, 20)).toEqual(direct.stdout.split('\n').slice(0, 20));
  });

  it('says to build first when the bundle is absent, in one line (JSON under --json)', async () => {
    // The stub alone in a package without dist/, as in a fresh clone before `npm run build`.
    const pkg = await tempDir('sessref-unbuilt-');
    await mkdir(join(pkg, 'bin'));
    await copyFile(STUB, join(pkg, 'bin', 'sessref.js'));
    await writeFile(join(pkg, 'package.json'), '{"type":"module"}');
    const run = (args: string[]) => finished(spawn(process.execPath, [join(pkg, 'bin', 'sessref.js'), ...args], { stdio: ['ignore', 'pipe', 'pipe'] }));
    expect(expectFailure(await run(['--help']), 1, 'NOT_BUILT')).toBe('sessref is not built yet: packages/cli/bundle/bin.js is missing');
    const json = await run(['list', '--json']);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stderr)).toMatchObject({ error: { code: 'NOT_BUILT', hint: 'run `npm run build` at the repository root, then run sessref again' } });
    // A build with a piece missing is not "not built": that failure is shown as it is.
    await mkdir(join(pkg, 'bundle'));
    await writeFile(join(pkg, 'bundle', 'bin.js'), "import './cli-missing.js';\n");
    const broken = await run(['--help']);
    expect(broken.code).not.toBe(0);
    expect(broken.stderr).not.toContain('NOT_BUILT');
    expect(broken.stderr).toContain('cli-missing.js');
  });
});
