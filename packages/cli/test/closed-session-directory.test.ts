/**
 * #37: a session directory this user cannot open (mode 000, another user's)
 * costs that one session. The rest of the root lists with its titles and is
 * shown and cited as before; the closed one is listed as unreadable, naming
 * its log; a closed project directory, whose sessions no one here can even
 * name, is one note on stderr. sessref reads every log itself, so no walk of the whole root (dsh's
 * backend checks every session directory before any read) meets it.
 *
 * A closed directory stops only a user without privileges: as root the
 * commands run as `nobody` through util-linux `setpriv`, else as this user.
 * `nobody` runs copies of this Node and of the built command, since a
 * checkout (CI's, in a private temporary folder) need not be open to others.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmod, copyFile, cp, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, finished, requireBuild, sessref } from './support.js';

const AS_ROOT = process.getuid?.() === 0;
/** The unprivileged user and group the commands run as under root. */
const NOBODY = '65534';
const HAS_SETPRIV = spawnSync('setpriv', ['--version'], { stdio: 'ignore' }).status === 0;

let home: string;
let root: string;
/** The Node and the built command the commands run with: this checkout's, or copies `nobody` can reach. */
let node = process.execPath;
let bin = BIN;

beforeAll(async () => {
  requireBuild();
  home = await mkdtemp(join(tmpdir(), 'sessref-closed-'));
  root = join(home, 'sessions');
  await mkdir(root);
  expect((await sessref(['seed', '--root', root])).code).toBe(0);
  // dsh writes its directories private to the user who ran it: open the root to `nobody`, then close one session.
  if (AS_ROOT) {
    // The bundle needs only itself and the CLI's manifest beside it (its version).
    node = join(home, 'node');
    bin = join(home, 'cli', 'bundle', 'bin.js');
    await copyFile(process.execPath, node);
    await cp(dirname(BIN), dirname(bin), { recursive: true });
    await copyFile(join(dirname(BIN), '..', 'package.json'), join(home, 'cli', 'package.json'));
  }
  spawnSync('chmod', ['-R', 'a+rX', home]);
  await mkdir(join(home, 'cache'), { mode: 0o777 });
  await chmod(join(home, 'cache'), 0o777);
  // The cache is its user's alone, or sessref keeps nothing in it (and says so).
  if (AS_ROOT) spawnSync('chown', [`${NOBODY}:${NOBODY}`, join(home, 'cache')]);
  await chmod(join(root, '--home-dev-webapp--', 'scratchpad'), 0o000);
  await cp(join(root, '--home-dev-infra--'), join(root, '--closed-project--'), { recursive: true });
  await chmod(join(root, '--closed-project--'), 0o000);
});
afterAll(async () => {
  await chmod(join(root, '--home-dev-webapp--', 'scratchpad'), 0o700);
  await chmod(join(root, '--closed-project--'), 0o700);
  await rm(home, { recursive: true, force: true });
});

/** `sessref ...args` over the root, as a user the closed directory stops. */
async function unprivileged(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const command = [node, bin, ...args, '--root', root];
  const env = { PATH: process.env['PATH'] ?? '', NO_COLOR: '1', HOME: join(home, 'cache'), SESSREF_CACHE_DIR: join(home, 'cache'), DSH_HOME: join(home, 'no-dsh') };
  const [file, ...rest] = AS_ROOT ? ['setpriv', `--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', ...command] : command;
  return finished(spawn(file!, rest, { env, stdio: ['ignore', 'pipe', 'pipe'] }));
}

describe.skipIf(AS_ROOT && !HAS_SETPRIV)('a session directory this user cannot open', () => {
  it('is listed as unreadable, naming its log; every other session lists with its title', async () => {
    const { code, stdout, stderr } = await unprivileged(['list', '--json']);
    expect(code).toBe(0);
    expect(stderr).toContain('project directory --closed-project-- of the root cannot be opened by this user: the sessions in it are left out');
    const rows = JSON.parse(stdout) as { sessionId: string; title?: string; readError?: { code: string; message: string } }[];
    expect(rows).toHaveLength(8);
    const closed = rows.find((row) => row.sessionId === 'scratchpad');
    expect(closed?.readError).toMatchObject({ code: 'SESSION_LOG_UNREADABLE', message: expect.stringContaining('--home-dev-webapp--/scratchpad/session.jsonl.zstd') });
    expect(rows.filter((row) => row.readError !== undefined)).toHaveLength(1);
    expect(rows.find((row) => row.sessionId === 'flaky-ci')?.title).toBe('Fix flaky CI on main');
    expect(rows.find((row) => row.sessionId === 'billing-schema')?.title).toBe('Design the billing schema');
  });

  it('leaves the others to be shown and cited', async () => {
    const shown = await unprivileged(['show', 'billing-schema']);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('Design the billing schema');
    const prepared = await unprivileged(['prepare', '--target', 'flaky-ci', 'see @[Design the billing schema](dsh-session:ImJpbGxpbmctc2NoZW1hIg)']);
    expect(prepared.code).toBe(0);
    expect(prepared.stdout).toContain('billing-schema');
  });

  it('is refused on its own when it is the one shown', async () => {
    const shown = await unprivileged(['show', 'scratchpad']);
    expect(shown.code).not.toBe(0);
    expect(shown.stderr).toContain('SESSION_LOG_UNREADABLE');
  });
});
