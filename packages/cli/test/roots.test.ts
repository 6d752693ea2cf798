/**
 * Which session root `sessref` uses, and that it says why: `--root`, then
 * `$SESSREF_ROOT`, then dsh's own sessions (`<dsh home>/sessions`, dsh's home
 * being `$DSH_HOME`, else `~/.dsh`) when they exist, then the demo root
 * `./.sessref/sessions`. Each case runs the built binary with a fake home
 * (HOME and DSH_HOME point into a temporary directory), on roots written by
 * the real dsh persistence (`sessref seed` writes through it). Also: a root
 * that is a file, a path through a file, a missing or unreadable directory;
 * that only the demo root is ever created or seeded (a mistyped path is an
 * error, never a new folder); and that a root without sessions, empty or not,
 * is one answer with a hint that fits it.
 */
import { spawn } from 'node:child_process';
import { chmod, mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT_LINE, emptyRoot, expectFailure, hashTree, json, ok, removeTemps, requireBuild, sessref, tempDir } from './support';

let home: string;
let dshSessions: string;
let dshHashes: Record<string, string>;
let project: string;

/** A fake user: HOME is a temporary directory, DSH_HOME unset unless a test sets it. */
const asUser = (env: Record<string, string | undefined> = {}) => ({ cwd: project, env: { HOME: home, DSH_HOME: undefined, ...env } });

beforeAll(async () => {
  requireBuild();
  home = await tempDir('sessref-home-');
  dshSessions = join(home, '.dsh', 'sessions');
  // dsh's sessions, as the real persistence writes them (seed writes into a root that exists).
  await mkdir(dshSessions, { recursive: true });
  await ok(['seed', '--root', dshSessions]);
  dshHashes = await hashTree(dshSessions);
  project = await tempDir('sessref-project-');
});

afterAll(async () => {
  try {
    // No command ever wrote into the user's dsh sessions.
    expect(await hashTree(dshSessions)).toEqual(dshHashes);
  } finally {
    await removeTemps();
  }
});

/** The root line of a `list` run, after checking it is the first stderr line. */
async function rootLine(args: readonly string[], options: ReturnType<typeof asUser>): Promise<string> {
  const result = await sessref(args, options);
  expect(result.stderr, result.stderr).toMatch(ROOT_LINE);
  return result.stderr.split('\n')[0]!;
}

describe('root resolution', () => {
  it("with DSH_HOME unset, finds dsh's sessions under HOME and says so", async () => {
    expect(await rootLine(['list'], asUser())).toBe(`root ${dshSessions} (dsh's sessions, ~/.dsh/sessions)`);
    const listed = await json<{ sessionId: string }[]>(['list'], asUser());
    expect(listed).toHaveLength(8);
  });

  it('with DSH_HOME set, finds $DSH_HOME/sessions', async () => {
    const other = await tempDir('sessref-dsh-home-');
    await mkdir(join(other, 'sessions'));
    await ok(['seed', '--root', join(other, 'sessions')]);
    expect(await rootLine(['list'], asUser({ DSH_HOME: other }))).toBe(`root ${join(other, 'sessions')} (dsh's sessions, $DSH_HOME/sessions)`);
  });

  it('a blank DSH_HOME counts as unset, as dsh treats it', async () => {
    expect(await rootLine(['list'], asUser({ DSH_HOME: '  ' }))).toBe(`root ${dshSessions} (dsh's sessions, ~/.dsh/sessions)`);
  });

  it('without dsh sessions, falls back to the demo root in the current directory and says why', async () => {
    const bare = await tempDir('sessref-bare-home-');
    const result = await sessref(['list'], { cwd: project, env: { HOME: bare, DSH_HOME: undefined } });
    const demo = join(project, '.sessref', 'sessions');
    const reason = 'the demo root: no --root, no $SESSREF_ROOT, no dsh sessions at ~/.dsh/sessions';
    expect(result.stderr.split('\n')[0]).toBe(`root ${demo} (${reason})`);
    expect(expectFailure(result, 1, 'NO_ROOT')).toBe(`the session root ${demo} (${reason}) does not exist`);
    // With DSH_HOME pointing where dsh has no sessions, the line names that path.
    const nowhere = join(bare, 'dsh');
    const line = (await sessref(['list'], { cwd: project, env: { HOME: bare, DSH_HOME: nowhere } })).stderr.split('\n')[0];
    expect(line).toBe(`root ${demo} (the demo root: no --root, no $SESSREF_ROOT, no dsh sessions at $DSH_HOME/sessions = ${join(nowhere, 'sessions')})`);
  });

  it('SESSREF_ROOT wins over dsh, --root over both; a blank SESSREF_ROOT counts as unset', async () => {
    const mine = await emptyRoot();
    await ok(['seed', '--root', mine]);
    expect(await rootLine(['list'], asUser({ SESSREF_ROOT: mine }))).toBe(`root ${mine} ($SESSREF_ROOT)`);
    expect(await rootLine(['list', '--root', mine], asUser({ SESSREF_ROOT: join(home, 'nowhere') }))).toBe(`root ${mine} (--root)`);
    expect(await rootLine(['list'], asUser({ SESSREF_ROOT: ' ' }))).toBe(`root ${dshSessions} (dsh's sessions, ~/.dsh/sessions)`);
    // --root is resolved against the current directory.
    expect(await rootLine(['list', '--root', '.sessref/../x'], asUser())).toBe(`root ${join(project, 'x')} (--root)`);
  });

  it('under --json the root is a JSON object on stderr; stdout stays the list', async () => {
    const result = await sessref(['list', '--json'], asUser());
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stderr)).toEqual({ root: { path: dshSessions, source: 'dsh', reason: "dsh's sessions, ~/.dsh/sessions" } });
    expect(JSON.parse(result.stdout)).toHaveLength(8);
  });

  it('--help ends with the root a command would use, and why', async () => {
    const out = await ok(['--help'], asUser());
    expect(out.trimEnd().split('\n').at(-1)).toBe(`Session root: ${dshSessions} (dsh's sessions, ~/.dsh/sessions)`);
    expect(out).toContain('--root DIR');
    const listHelp = await ok(['list', '--help'], asUser({ SESSREF_ROOT: '/srv/sessions' }));
    expect(listHelp.trimEnd().split('\n').at(-1)).toBe('Session root: /srv/sessions ($SESSREF_ROOT)');
  });

  it("seed never writes into dsh's sessions: without --root it seeds the demo root", async () => {
    const cwd = await tempDir('sessref-seed-cwd-');
    const out = await ok(['seed'], { cwd, env: { HOME: home, DSH_HOME: undefined } });
    expect(out).toBe(`seeded 8 sessions into ${join(cwd, '.sessref', 'sessions')}\n`);
  });
});

/** Start `serve`, wait for its URL, stop it with SIGTERM; returns what it printed. */
async function serveOnce(args: readonly string[], cwd: string, env: Record<string, string | undefined>): Promise<{ stdout: string; stderr: string; code: number | null }> {
  const childEnv: Record<string, string | undefined> = { ...process.env, NO_COLOR: '1', SESSREF_ROOT: undefined, SESSREF_CACHE_DIR: join(home, 'cache'), ...env };
  for (const key of Object.keys(childEnv)) if (childEnv[key] === undefined) delete childEnv[key];
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', ...args], { cwd, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    // Its last banner line comes right before it listens for Ctrl+C and SIGTERM.
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (stderr.includes('Press Ctrl+C to stop.')) setTimeout(() => child.kill('SIGTERM'), 50);
    });
    child.on('close', (code) => resolve({ stdout, stderr, code }));
  });
}

describe('npm start (serve --seed-if-empty)', () => {
  it("keeps its seeded demo root even when dsh's sessions exist, unless the user passes another", async () => {
    const cwd = await tempDir('sessref-start-');
    const demo = join(cwd, '.sessref', 'sessions');
    const first = await serveOnce(['--seed-if-empty'], cwd, { HOME: home, DSH_HOME: undefined });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]{64}\n$/);
    const lines = first.stderr.split('\n');
    expect(lines[0]).toBe(`root ${demo} (the demo root: no --root or $SESSREF_ROOT)`);
    expect(lines[1]).toBe(`seeded 8 demo sessions into ${demo}`);
    expect(Object.keys(await hashTree(demo))).toHaveLength(8);
    // The user names another root: served as it is, never seeded.
    const other = await serveOnce(['--seed-if-empty', '--root', dshSessions], cwd, { HOME: home, DSH_HOME: undefined });
    expect(other.stderr.split('\n')[0]).toBe(`root ${dshSessions} (--root)`);
    expect(other.stderr).not.toContain('seeded');
    // Plain serve (no demo) serves dsh's sessions.
    const plain = await serveOnce([], cwd, { HOME: home, DSH_HOME: undefined });
    expect(plain.stderr.split('\n')[0]).toBe(`root ${dshSessions} (dsh's sessions, ~/.dsh/sessions)`);
  });

  it('seeds the demo root while it is empty, as while it is missing', async () => {
    const cwd = await tempDir('sessref-start-empty-');
    const demo = join(cwd, '.sessref', 'sessions');
    await mkdir(demo, { recursive: true });
    const started = await serveOnce(['--seed-if-empty'], cwd, { HOME: home, DSH_HOME: undefined });
    expect(started.stderr.split('\n').slice(0, 2)).toEqual([`root ${demo} (the demo root: no --root or $SESSREF_ROOT)`, `seeded 8 demo sessions into ${demo}`]);
    expect(Object.keys(await hashTree(demo))).toHaveLength(8);
  });

  it("`npm start -- --root <an empty dsh folder>` serves it as it is: nothing written, and a hint that fits dsh's folder", async () => {
    const user = await freshDshUser();
    const hint = `start a session in dsh; or pass --root DIR or set SESSREF_ROOT to use another root`;
    for (const [args, env, why] of [
      [['--seed-if-empty', '--root', user.sessions], user.env, '--root'],
      [['--seed-if-empty', '--root', user.sessions], { ...user.env, HOME: project, DSH_HOME: user.home }, '--root'],
      [['--seed-if-empty'], { ...user.env, SESSREF_ROOT: user.sessions }, '$SESSREF_ROOT'],
    ] as const) {
      const served = await serveOnce(args, user.cwd, env);
      expect(await readdir(user.sessions), served.stderr).toEqual([]);
      expect(served.code, served.stderr).toBe(0);
      expect(served.stderr.split('\n').slice(0, 3)).toEqual([
        `root ${user.sessions} (${why})`,
        `hint no sessions in ${user.sessions} (${why}): ${hint}`,
        `sessref inspector over ${user.sessions}`,
      ]);
    }
    // Nor anything in the current directory: no demo root appeared beside it.
    expect(await readdir(user.cwd)).toEqual([]);
  });
});

/** A user who installed dsh and has no session yet: an empty `~/.dsh/sessions`, and an empty current directory. */
async function freshDshUser(): Promise<{ home: string; sessions: string; cwd: string; env: Record<string, string | undefined> }> {
  const userHome = await tempDir('sessref-fresh-home-');
  const sessions = join(userHome, '.dsh', 'sessions');
  await mkdir(sessions, { recursive: true });
  return { home: join(userHome, '.dsh'), sessions, cwd: await tempDir('sessref-fresh-cwd-'), env: { HOME: userHome, DSH_HOME: undefined } };
}

describe('writes only where the user asked', () => {
  it('a mistyped root is NO_ROOT naming it, for every command, and nothing is created', async () => {
    const base = await tempDir('sessref-typo-');
    const typo = join(base, '.dsh', 'sesions');
    const fix = 'check the path: sessref never creates a root you name; to start an empty one, create the directory first';
    const commands = [
      ['list'],
      ['show', 'x'],
      ['search', 'x'],
      ['prepare', '--target', 'x', 'hi'],
      ['send', '--target', 'x', 'hi'],
      ['new', '--title', 'Mine'],
      ['mention', 'x'],
      ['seed'],
      ['seed', '--force'],
      ['serve', '--port', '0'],
      ['serve', '--port', '0', '--seed-if-empty'],
    ];
    const runs = [
      ...commands.map((args) => ({ args, how: '--root', run: () => sessref([...args, '--root', typo], { cwd: base }) })),
      ...[['seed'], ['new'], ['serve', '--port', '0', '--seed-if-empty']].map((args) => ({
        args,
        how: '$SESSREF_ROOT',
        run: () => sessref(args, { cwd: base, env: { SESSREF_ROOT: typo } }),
      })),
    ];
    const results = [];
    for (const { args, how, run } of runs) {
      const result = await run();
      // Not the root, not its parent, not a demo root in the current directory; and an error.
      expect({ created: await readdir(base), exit: result.code }, `${args.join(' ')} (${how}): ${result.stderr}`).toEqual({ created: [], exit: 1 });
      results.push({ args, how, result });
    }
    for (const { args, how, result } of results) {
      expect(expectFailure(result, 1, 'NO_ROOT'), args.join(' ')).toBe(`the session root ${typo} (${how}) does not exist`);
      if (how === '--root') expect(result.stderr).toContain(`(fix: ${fix})`);
    }
  });

  it('the demo root is created only by what seeds it: `new` and `serve` on a missing demo root say how to get one', async () => {
    const cwd = await tempDir('sessref-no-demo-');
    const bare = { HOME: await tempDir('sessref-bare-home-'), DSH_HOME: undefined };
    const demo = join(cwd, '.sessref', 'sessions');
    const reason = 'the demo root: no --root, no $SESSREF_ROOT, no dsh sessions at ~/.dsh/sessions';
    for (const args of [['new'], ['serve', '--port', '0'], ['list']]) {
      const result = await sessref(args, { cwd, env: bare });
      expect(expectFailure(result, 1, 'NO_ROOT'), args.join(' ')).toBe(`the session root ${demo} (${reason}) does not exist`);
      expect(result.stderr).toContain('(fix: run `sessref seed` to create it with the demo sessions, or pass --root DIR or set SESSREF_ROOT)');
    }
    expect(await readdir(cwd)).toEqual([]);
    // Which is no dead end: seed writes the root list reads.
    expect(await ok(['seed'], { cwd, env: bare })).toBe(`seeded 8 sessions into ${demo}\n`);
    expect(await json<unknown[]>(['list'], { cwd, env: bare })).toHaveLength(8);
  });
});

describe('a root without sessions', () => {
  /** Run with `--root root`, the root's path written `<root>` so that two roots can be compared. */
  async function answer(args: readonly string[], root: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
    const result = await sessref([...args, '--root', root]);
    return { code: result.code, stdout: result.stdout.replaceAll(root, '<root>'), stderr: result.stderr.replaceAll(root, '<root>') };
  }

  it('empty, or holding only other files, is one answer: no sessions, exit 0, and a hint', async () => {
    const empty = await emptyRoot();
    const others = await emptyRoot();
    await writeFile(join(others, 'notes.txt'), 'not a session');
    await mkdir(join(others, '--home-dev-app--', 'no-log-here'), { recursive: true });
    const hint = 'hint no sessions in <root> (--root): `sessref new` creates a session in it; or pass --root DIR to use another root';
    expect(await answer(['list'], empty)).toEqual({ code: 0, stdout: 'no sessions\n', stderr: `root <root> (--root)\n${hint}\n` });
    expect(await answer(['list', '--json'], empty)).toEqual({
      code: 0,
      stdout: '[]\n',
      stderr: `${JSON.stringify({ root: { path: '<root>', source: '--root', reason: '--root' } })}\n${JSON.stringify({ hint: { code: 'NO_SESSIONS', message: hint.slice('hint '.length) } })}\n`,
    });
    for (const args of [['list'], ['list', '--json'], ['list', 'anything'], ['show', 'x'], ['mention', 'x']]) {
      expect(await answer(args, others), args.join(' ')).toEqual(await answer(args, empty));
    }
    const served = await Promise.all([empty, others].map(async (root) => (await serveOnce(['--root', root], project, {})).stderr.replaceAll(root, '<root>').split('\n')[1]));
    expect(served).toEqual([hint, hint]);
    // Answering wrote nothing.
    expect(await readdir(empty)).toEqual([]);
  });

  it("the hint fits the root: dsh's folder says to start a session in dsh, never to seed it; the demo root says seed", async () => {
    const user = await freshDshUser();
    const listed = await sessref(['list'], { cwd: user.cwd, env: user.env });
    expect(listed).toEqual({
      code: 0,
      stdout: 'no sessions\n',
      stderr:
        `root ${user.sessions} (dsh's sessions, ~/.dsh/sessions)\n` +
        `hint no sessions in ${user.sessions} (dsh's sessions, ~/.dsh/sessions): start a session in dsh; or pass --root DIR or set SESSREF_ROOT to use another root\n`,
    });
    const demo = join(user.cwd, '.sessref', 'sessions');
    await mkdir(demo, { recursive: true });
    const bare = { HOME: await tempDir('sessref-bare-home-'), DSH_HOME: undefined };
    const reason = 'the demo root: no --root, no $SESSREF_ROOT, no dsh sessions at ~/.dsh/sessions';
    expect((await sessref(['list'], { cwd: user.cwd, env: bare })).stderr.split('\n')[1]).toBe(
      `hint no sessions in ${demo} (${reason}): \`sessref seed\` writes the demo sessions into it; or pass --root DIR to use another root`,
    );
  });

  it("seed's help names the root it writes, never dsh's; so does serve --seed-if-empty's", async () => {
    const user = await freshDshUser();
    const demo = `Session root: ${join(user.cwd, '.sessref', 'sessions')} (the demo root: no --root or $SESSREF_ROOT)`;
    const lastLine = async (args: readonly string[]) => (await ok(args, { cwd: user.cwd, env: user.env })).trimEnd().split('\n').at(-1);
    expect(await lastLine(['seed', '--help'])).toBe(demo);
    expect(await lastLine(['serve', '--seed-if-empty', '--help'])).toBe(demo);
    expect(await lastLine(['serve', '--help'])).toBe(`Session root: ${user.sessions} (dsh's sessions, ~/.dsh/sessions)`);
    expect(await ok(['seed', '--help'], { cwd: user.cwd, env: user.env })).toContain('A root you name must exist and be empty');
  });
});

describe('a --root that is no directory of sessions', () => {
  it('a file is one line, exit 1, never a doubled system error', async () => {
    const file = join(await tempDir(), 'notes.txt');
    await writeFile(file, 'not a root');
    for (const args of [['list'], ['show', 'x'], ['new'], ['seed'], ['serve', '--port', '0'], ['mention', 'x']]) {
      const message = expectFailure(await sessref([...args, '--root', file]), 1, 'ROOT_NOT_A_DIRECTORY');
      expect(message).toBe(`the session root ${file} (--root) is not a directory: it is a file`);
    }
    const through = join(file, 'sessions');
    const message = expectFailure(await sessref(['list', '--root', through]), 1, 'ROOT_NOT_A_DIRECTORY');
    expect(message).toBe(`the session root ${through} (--root) is not a directory: a part of that path is a file`);
    expect(message).not.toMatch(/ENOTDIR/);
  });

  it('a missing directory is one line: NO_ROOT, naming where the root came from', async () => {
    const missing = join(await tempDir(), 'missing');
    expect(expectFailure(await sessref(['show', 'x', '--root', missing]), 1, 'NO_ROOT')).toBe(`the session root ${missing} (--root) does not exist`);
    expect(expectFailure(await sessref(['list'], { env: { SESSREF_ROOT: missing } }), 1, 'NO_ROOT')).toBe(`the session root ${missing} ($SESSREF_ROOT) does not exist`);
  });

  // The superuser reads any directory whatever its mode, so only another user can see this one.
  it.skipIf(process.getuid?.() === 0)('an unreadable directory is one line, exit 2', async () => {
    const locked = join(await tempDir(), 'locked');
    await mkdir(locked);
    await chmod(locked, 0o000);
    try {
      expect(expectFailure(await sessref(['list', '--root', locked]), 2, 'ROOT_UNREADABLE')).toBe(`the session root ${locked} (--root) cannot be read: permission denied`);
    } finally {
      await chmod(locked, 0o700);
    }
  });
});
