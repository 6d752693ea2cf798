/**
 * Writes stay inside the root: a session's log, its session directory or its
 * project (cwd) directory replaced by a symbolic link to a place outside the
 * root. For every position, `send` to that session and `new` in that cwd
 * either refuse with a coded error or write only inside the root, and no byte
 * outside the root changes. A root that is itself reached through a symbolic
 * link is the user's choice and works as any other.
 */
import { cp, lstat, mkdir, readdir, realpath, rename, symlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emptyRoot, expectFailure, hashTree, logPath, ok, removeTemps, requireBuild, sessref, tempDir } from './support';

const WEBAPP = '/home/dev/webapp';
const TARGET = 'scratchpad';

let seeded: string;

beforeAll(async () => {
  requireBuild();
  seeded = await emptyRoot('sessref-links-seed-');
  await ok(['seed', '--root', seeded]);
});

afterAll(removeTemps);

type Position = 'log' | 'session directory' | 'project directory';

/** A copy of the demo root whose `position` on the target's path is a link to the same thing moved outside the root. */
async function linkedRoot(position: Position): Promise<{ root: string; outside: string }> {
  const base = await tempDir('sessref-links-');
  const root = join(base, 'sessions');
  const outside = join(base, 'outside');
  await cp(seeded, root, { recursive: true });
  await mkdir(outside);
  const log = logPath(root, TARGET, WEBAPP);
  const linked = position === 'log' ? log : position === 'session directory' ? dirname(log) : dirname(dirname(log));
  const moved = join(outside, 'moved');
  await rename(linked, moved);
  await symlink(moved, linked);
  return { root, outside };
}

/** No path from the root to any file under it goes through a link, for every file `new` added. */
async function expectAllInside(root: string, before: Record<string, string>): Promise<void> {
  const after = await hashTree(root);
  const realRoot = await realpath(root);
  for (const path of Object.keys(after).filter((file) => !(file in before))) {
    expect(await realpath(join(root, path))).toBe(join(realRoot, path));
  }
}

const POSITIONS: { position: Position; send: [number, string]; create: [number, string] | 'writes inside' }[] = [
  // dsh's listing skips a symlinked directory, so a session behind one is not there to send to.
  { position: 'log', send: [2, 'SESSION_LOG_SYMLINK'], create: 'writes inside' },
  { position: 'session directory', send: [1, 'SESSION_QUERY_SESSION_NOT_FOUND'], create: 'writes inside' },
  { position: 'project directory', send: [1, 'SESSION_QUERY_SESSION_NOT_FOUND'], create: [2, 'SESSION_LOG_SYMLINK'] },
];

describe('a symbolic link on the path of a write', () => {
  for (const { position, send, create } of POSITIONS) {
    it(`${position}: send is refused (${send[1]}); new ${create === 'writes inside' ? 'writes inside the root' : `is refused (${create[1]})`}; nothing outside changes`, async () => {
      const { root, outside } = await linkedRoot(position);
      const outsideBefore = { bytes: await hashTree(outside), entries: await readdir(outside, { recursive: true }) };
      const rootBefore = await hashTree(root);

      const message = expectFailure(await sessref(['send', '--root', root, '--target', TARGET, 'hello']), ...send);
      expect(message).toContain(`"${TARGET}"`);
      if (send[1] === 'SESSION_LOG_SYMLINK') expect(message).toContain(`→ ${join(outside, 'moved')}`);
      expect(await hashTree(root)).toEqual(rootBefore);

      const created = await sessref(['new', '--root', root, '--cwd', WEBAPP, '--title', 'Beside a link']);
      if (create === 'writes inside') {
        expect(created.code, created.stderr).toBe(0);
        await expectAllInside(root, rootBefore);
      } else {
        expectFailure(created, ...create);
        expect(await hashTree(root)).toEqual(rootBefore);
      }
      // Not a byte, and not even an empty directory, outside the root.
      expect({ bytes: await hashTree(outside), entries: await readdir(outside, { recursive: true }) }).toEqual(outsideBefore);
    });
  }

  it('a root reached through a link is used as it is: send and new succeed', async () => {
    const base = await tempDir('sessref-links-');
    await cp(seeded, join(base, 'real'), { recursive: true });
    await symlink(join(base, 'real'), join(base, 'sessions'));
    const root = join(base, 'sessions');
    expect((await lstat(root)).isSymbolicLink()).toBe(true);
    await ok(['send', '--root', root, '--target', TARGET, 'through the root link']);
    await ok(['new', '--root', root, '--cwd', WEBAPP]);
  });
});
