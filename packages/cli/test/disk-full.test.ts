/**
 * A full disk: the root lives on a small tmpfs filled to within a few pages,
 * then `send` or `new` runs. Whatever the room left, the command either
 * succeeds whole (and the log loads in dsh) or exits 2 with every byte and
 * every directory entry of the root as they were: no resume record, no
 * staged `*.tmp` file, no directory, no lock file.
 *
 * Needs root to mount a tmpfs; where the mount is refused, every test here
 * is skipped and says why.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, openSync, writeSync } from 'node:fs';
import { cp, mkdir, readdir, rm, rmdir, stat, truncate } from 'node:fs/promises';
import { join, relative } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionId } from '@deepseek-ai/dsh-session';
import { createHost } from '@sessref/test-support';
import { emptyRoot, hashTree, ok, removeTemps, requireBuild, sessref, tempDir, type RunResult } from './support';

const PAGE = 4096;
const WEBAPP = '/home/dev/webapp';

let mountPoint: string | undefined;
let skipReason: string | undefined;
let seeded: string;

beforeAll(async () => {
  requireBuild();
  seeded = await emptyRoot('sessref-full-seed-');
  await ok(['seed', '--root', seeded]);
  const dir = await tempDir('sessref-tmpfs-');
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', dir], { stdio: 'pipe' });
    mountPoint = dir;
  } catch (error) {
    skipReason = `cannot mount a tmpfs to fill (${(error as Error).message.split('\n')[0]}); run as root to test a full disk`;
  }
});

afterAll(async () => {
  if (mountPoint !== undefined) execFileSync('umount', [mountPoint]);
  await removeTemps();
});

/** Every entry under `root` with its kind, so an empty directory or a leftover file shows. */
async function listing(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries.map((entry) => `${entry.isDirectory() ? 'dir ' : 'file'} ${relative(root, join(entry.parentPath, entry.name))}`).sort();
}

/** Fill the file system of `dir` completely, then free `pages` pages. */
async function fillLeaving(dir: string, pages: number): Promise<void> {
  const filler = join(dir, 'filler');
  const descriptor = openSync(filler, 'w');
  const chunk = Buffer.alloc(64 * 1024, 1);
  try {
    for (;;) writeSync(descriptor, chunk);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  } finally {
    closeSync(descriptor);
  }
  const { size } = await stat(filler);
  await truncate(filler, Math.max(0, Math.floor(size / PAGE) * PAGE - pages * PAGE));
}

/** A message that does not compress, so its frame needs fresh pages. */
function incompressible(bytes: number, seed: number): string {
  let state = seed || 1;
  let text = '';
  while (text.length < bytes) {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    text += state.toString(36);
  }
  return text.slice(0, bytes);
}

type Command = { kind: 'send'; target: 'scratchpad' | 'quick-question'; bytes: number } | { kind: 'new'; cwd?: string };

function run(root: string, command: Command, seed: number): Promise<RunResult> {
  if (command.kind === 'send') return sessref(['send', '--root', root, '--target', command.target, incompressible(command.bytes, seed)]);
  return sessref(['new', '--root', root, ...(command.cwd === undefined ? [] : ['--cwd', command.cwd]), '--title', 'On a full disk']);
}

describe('a full disk', () => {
  it('send and new either succeed whole or exit 2 leaving the root byte for byte and entry for entry as it was', async (context) => {
    if (mountPoint === undefined) return context.skip(skipReason);
    const disk = mountPoint;
    const command = fc.oneof(
      fc.record({ kind: fc.constant('send' as const), target: fc.constantFrom('scratchpad' as const, 'quick-question' as const), bytes: fc.constantFrom(200, 6_000, 40_000) }),
      fc.record({ kind: fc.constant('new' as const), cwd: fc.constantFrom(undefined, WEBAPP, '/home/dev/fresh-project') }),
    );
    const outcomes = { succeeded: 0, refused: 0 };
    await fc.assert(
      fc.asyncProperty(command, fc.nat({ max: 12 }), fc.nat(), async (chosen, freePages, seed) => {
        const root = join(disk, 'sessions');
        await cp(seeded, root, { recursive: true });
        try {
          await fillLeaving(disk, freePages);
          const [bytes, entries] = [await hashTree(root), await listing(root)];
          const result = await run(root, chosen, seed);
          if (result.code === 0) {
            outcomes.succeeded++;
            await checkSucceeded(root, chosen, result, bytes, entries);
          } else {
            outcomes.refused++;
            expect(result.code, result.stderr).toBe(2);
            expect(result.stdout).toBe('');
            expect(result.stderr).toMatch(/^error [A-Z_]+: .+\n$/);
            expect(await listing(root)).toEqual(entries);
            expect(await hashTree(root)).toEqual(bytes);
          }
        } finally {
          await rm(join(disk, 'filler'), { force: true });
          await rm(root, { recursive: true, force: true });
        }
      }),
      // Two cases first, so both branches always run: a 40 kB send with no page left cannot fit, a new session with twelve can.
      { numRuns: 24, examples: [[{ kind: 'send', target: 'scratchpad', bytes: 40_000 }, 0, 1], [{ kind: 'new', cwd: undefined }, 12, 2]] },
    );
    console.info(`full disk: ${outcomes.succeeded} commands succeeded whole, ${outcomes.refused} failed with the root unchanged`);
    // Both branches ran: the room left decides, not the test.
    expect(outcomes.refused).toBeGreaterThan(0);
    expect(outcomes.succeeded).toBeGreaterThan(0);
  }, 600_000);

  it('an empty root: a failed new removes the directories it made', async (context) => {
    if (mountPoint === undefined) return context.skip(skipReason);
    const fresh = join(mountPoint, 'fresh');
    await mkdir(fresh);
    try {
      await fillLeaving(mountPoint, 0);
      const result = await sessref(['new', '--root', fresh, '--cwd', '/home/dev/fresh-project', '--title', 'x']);
      expect(result.code, result.stderr).toBe(2);
      expect(await readdir(fresh)).toEqual([]);
    } finally {
      await rm(join(mountPoint, 'filler'), { force: true });
      await rmdir(fresh).catch(() => undefined);
    }
  });
});

/** The only change is the command's: the target's log grew and loads in dsh, or one new session's log appeared. */
async function checkSucceeded(root: string, command: Command, result: RunResult, bytes: Record<string, string>, entries: string[]): Promise<void> {
  const after = await hashTree(root);
  const changed = Object.keys(after).filter((path) => after[path] !== bytes[path]);
  expect(changed).toHaveLength(1);
  const id = command.kind === 'send' ? command.target : result.stdout.trim();
  expect(changed[0]).toMatch(new RegExp(`/${id}/session\\.jsonl\\.zstd$`));
  if (command.kind === 'send') expect(await listing(root)).toEqual(entries);
  const host = await createHost({ root });
  try {
    const { events } = await host.persistence!.inspect(SessionId(id));
    events.forEach((event, index) => expect(event.seq).toBe(index));
  } finally {
    await host.dispose();
  }
}
