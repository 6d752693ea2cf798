/**
 * Bounded work on hostile logs. Before sessref hands a log to dsh's JSONL
 * persistence it checks the file within a fixed budget (log-probe.ts): at
 * most 64 KiB + 4 bytes read, whatever the file's size, and no byte of a
 * refused log ever reaches the host. Big files here are sparse (truncate), so
 * a 2.5 GiB log costs nothing on disk; a run of zeros after a frame header is
 * exactly the crafted frame (empty raw blocks) that made the host rescan its
 * buffer quadratically. Budgets are asserted as counts (bytes read, host
 * reads, peak RSS growth in a child process), never as times; the times are
 * measured by scripts/hostile-logs.mjs (docs/reliability.md).
 */
import { spawn } from 'node:child_process';
import { closeSync, lstatSync, openSync, readFileSync, truncateSync, writeFileSync, writeSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { zstdCompressSync } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionId } from '@deepseek-ai/dsh-session';
import type { JsonlSessionPersistence } from '@deepseek-ai/dsh-session-persistence-jsonl';
import { encodeSessionReferenceUri } from '@sessref/core';
import { createHost } from '@sessref/test-support';
import { HEADER_BUDGET_BYTES, MAX_LOG_BYTES, probeLog, scanFirstFrame, type ProbeCounters } from '@sessref/dsh/reading';
import { copyRoot, emptyRoot, expectFailure, finished, json, logPath, ok, removeTemps, requireBuild, sessref, tempDir, withoutRootLine } from './support';

const WEBAPP = '/home/dev/webapp';
const GIB = 2 ** 30;
const MIB = 2 ** 20;
const FILE = '--home-dev-webapp--/flaky-ci/session.jsonl.zstd';
const SUBJECT = `session "flaky-ci": log ${FILE}`;

/** A frame header that opens a frame of empty raw blocks: followed by zeros (a sparse file), the frame never ends. */
const CRAFTED_HEAD = Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x00]);

/** Write `head` at the start of `path` and make the file `size` bytes long (the rest a hole of zeros). */
function sparse(path: string, head: Buffer, size: number): void {
  const fd = openSync(path, 'w');
  try {
    writeSync(fd, head);
  } finally {
    closeSync(fd);
  }
  truncateSync(path, size);
}

/** The header frame of a real log: its first Zstandard frame. */
function headerFrame(log: Buffer): Buffer {
  const scan = scanFirstFrame(log);
  if (scan.kind !== 'frame') throw new Error('no header frame');
  return log.subarray(0, scan.end);
}

function probed(path: string): { problem: ReturnType<typeof probeLog>; counters: ProbeCounters } {
  const counters: ProbeCounters = { bytesRead: 0 };
  return { problem: probeLog(path, counters), counters };
}

let seeded: string;
let healthyLog: Buffer;

beforeAll(async () => {
  requireBuild();
  seeded = await emptyRoot();
  await ok(['seed', '--root', seeded]);
  healthyLog = readFileSync(logPath(seeded, 'flaky-ci', WEBAPP));
});

afterAll(removeTemps);

describe('the probe reads a bounded prefix, whatever the file', () => {
  it('reads at most 64 KiB + 4 bytes of a crafted frame of any size up to 2 GiB and refuses it, and reads a healthy log once', async () => {
    const dir = await tempDir();
    const path = join(dir, 'log');
    for (const size of [HEADER_BUDGET_BYTES + 1, MIB, 8 * MIB, 64 * MIB, GIB, MAX_LOG_BYTES]) {
      sparse(path, CRAFTED_HEAD, size);
      const { problem, counters } = probed(path);
      expect(problem?.code, `${size} bytes`).toBe('SESSION_LOG_HEADER_TOO_LARGE');
      expect(counters.bytesRead).toBeLessThanOrEqual(HEADER_BUDGET_BYTES);
    }
    // One byte more than a log may have is refused by its size alone: nothing is read.
    sparse(path, CRAFTED_HEAD, MAX_LOG_BYTES + 1);
    const over = probed(path);
    expect(over.problem?.code).toBe('SESSION_LOG_TOO_LARGE');
    expect(over.counters.bytesRead).toBe(0);
    // A healthy log passes with one small read (its header and the next frame's magic).
    writeFileSync(path, healthyLog);
    const healthy = probed(path);
    expect(healthy.problem).toBeUndefined();
    expect(healthy.counters.bytesRead).toBeLessThanOrEqual(4096 + 4);
  });

  it('never throws, and never reads more than 64 KiB + 4 bytes, for generated prefixes and sizes (sparse up to 3 GiB)', async () => {
    const dir = await tempDir();
    const path = join(dir, 'log');
    const header = headerFrame(healthyLog);
    const prefix = fc.oneof(
      fc.uint8Array({ maxLength: 300 }),
      // Well-formed headers followed by anything.
      fc.uint8Array({ maxLength: 64 }).map((tail) => Buffer.concat([header, tail])),
      // Frame headers of every shape, then zeros: frames that end early, late or never.
      fc.tuple(fc.integer({ min: 0, max: 255 }), fc.uint8Array({ maxLength: 40 })).map(([descriptor, rest]) => Buffer.concat([CRAFTED_HEAD.subarray(0, 4), Buffer.from([descriptor]), rest])),
    );
    const size = fc.oneof(fc.constant(undefined), fc.integer({ min: 0, max: 3 * GIB }), fc.constantFrom(HEADER_BUDGET_BYTES - 1, HEADER_BUDGET_BYTES, HEADER_BUDGET_BYTES + 1, MAX_LOG_BYTES, MAX_LOG_BYTES + 1));
    const codes = new Map<string, number>();
    fc.assert(
      fc.property(prefix, size, (bytes, length) => {
        writeFileSync(path, bytes);
        if (length !== undefined) truncateSync(path, length);
        const { problem, counters } = probed(path);
        expect(counters.bytesRead).toBeLessThanOrEqual(HEADER_BUDGET_BYTES + 4);
        const code = problem?.code ?? 'passed';
        codes.set(code, (codes.get(code) ?? 0) + 1);
        if (length !== undefined && length > MAX_LOG_BYTES) expect(code).toBe('SESSION_LOG_TOO_LARGE');
      }),
      { numRuns: 400, seed: 0x5e55 },
    );
    // The generators reach every verdict.
    expect([...codes.keys()].sort()).toEqual(['SESSION_LOG_CORRUPT', 'SESSION_LOG_HEADER_TOO_LARGE', 'SESSION_LOG_TOO_LARGE', 'passed']);
  });

  it('never refuses a log the host can read: generated damage to a real log is refused only when dsh refuses it too, in the same words for a bad magic number', async () => {
    const root = await copyRoot(seeded);
    const path = logPath(root, 'flaky-ci', WEBAPP);
    const host = await createHost({ root, invariants: false });
    const headerEnd = headerFrame(healthyLog).length;
    const damage = fc.oneof(
      // A byte changed in the header frame or just after it.
      fc.tuple(fc.nat({ max: headerEnd + 8 }), fc.integer({ min: 0, max: 255 })).map(([at, value]) => (log: Buffer) => {
        const copy = Buffer.from(log);
        copy[at] = value;
        return copy;
      }),
      // Cut anywhere.
      fc.nat({ max: healthyLog.length }).map((at) => (log: Buffer) => log.subarray(0, at)),
      // Bytes inserted after the header frame.
      fc.uint8Array({ minLength: 1, maxLength: 12 }).map((bytes) => (log: Buffer) => Buffer.concat([log.subarray(0, headerEnd), bytes, log.subarray(headerEnd)])),
      // Garbage appended.
      fc.uint8Array({ minLength: 1, maxLength: 12 }).map((bytes) => (log: Buffer) => Buffer.concat([log, bytes])),
    );
    let refused = 0;
    try {
      await fc.assert(
        fc.asyncProperty(damage, async (apply) => {
          writeFileSync(path, apply(healthyLog));
          const problem = probeLog(path);
          if (problem === undefined) return;
          refused++;
          const hostRead = await (host.persistence as JsonlSessionPersistence).loadStored(SessionId('flaky-ci')).then(
            (stored) => (stored?.tornMarker === undefined ? 'read' : 'torn'),
            (error: Error) => error.message,
          );
          // Refused by the probe: the host would not read it either (a torn tail is refused by sessref anyway).
          expect(hostRead).not.toBe('read');
          const magic = /invalid frame magic at byte \d+$/.exec(problem.reason)?.[0];
          if (magic !== undefined) expect(hostRead).toBe(`corrupt Zstandard session log: ${magic}`);
        }),
        { numRuns: 300, seed: 0xd5a },
      );
    } finally {
      await host.dispose();
    }
    expect(refused).toBeGreaterThan(20);
  });
});

describe('hostile logs through the CLI', () => {
  const damage = async (how: (path: string) => void) => {
    const root = await copyRoot(seeded);
    how(logPath(root, 'flaky-ci', WEBAPP));
    return root;
  };

  /** Size, modification time and inode of every entry under `root`: sparse gigabytes are compared without being read. */
  const entries = async (root: string) =>
    (await readdir(root, { recursive: true, withFileTypes: true }))
      .map((entry) => {
        const path = join(entry.parentPath, entry.name);
        const stats = lstatSync(path);
        return `${relative(root, path)} ${stats.size} ${stats.mtimeMs} ${stats.ino}`;
      })
      .sort();

  /** `list` flags it in one warning; `show` and a citing `prepare` exit 2 with `message`; the rest works; nothing under the root changes. */
  const expectRefused = async (root: string, code: string, message: string) => {
    const before = await entries(root);
    const listed = await sessref(['list', '--root', root]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`^flaky-ci +dsh +\\(unreadable: ${code}\\) +- +-$`, 'm'));
    expect(withoutRootLine(listed.stderr)).toMatch(new RegExp(`^warning ${code}: ${message.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} \\(fix: .+\\)\\n$`));
    expect(expectFailure(await sessref(['show', 'flaky-ci', '--root', root]), 2, code)).toBe(message);
    expect(expectFailure(await sessref(['prepare', '--target', 'scratchpad', encodeSessionReferenceUri('flaky-ci'), '--root', root]), 2, code)).toBe(message);
    await ok(['show', 'billing-schema', '--root', root]);
    expect((await json<unknown[]>(['list', '--target', 'scratchpad', '--root', root])).length).toBe(6);
    expect(await entries(root)).toEqual(before);
  };

  it('a crafted header frame of 8 MiB is SESSION_LOG_HEADER_TOO_LARGE', async () => {
    const root = await damage((path) => sparse(path, CRAFTED_HEAD, 8 * MIB));
    await expectRefused(root, 'SESSION_LOG_HEADER_TOO_LARGE', `${SUBJECT} is damaged: its header frame does not end within the first 64 KiB (dsh writes it in a few hundred bytes)`);
  });

  it('a header frame that decompresses to 1 MiB is SESSION_LOG_HEADER_TOO_LARGE', async () => {
    const bomb = zstdCompressSync(Buffer.concat([Buffer.alloc(MIB, 0x20), Buffer.from('\n')]));
    expect(bomb.length).toBeLessThan(1024);
    const root = await damage((path) => writeFileSync(path, Buffer.concat([bomb, healthyLog.subarray(headerFrame(healthyLog).length)])));
    await expectRefused(root, 'SESSION_LOG_HEADER_TOO_LARGE', `${SUBJECT} is damaged: its header frame decompresses to more than 256 KiB (dsh writes a header line of a few hundred bytes)`);
  });

  it('1 GiB of zeros, and a real header followed by 1 GiB of zeros, are SESSION_LOG_CORRUPT at the first bad magic number', async () => {
    const zeros = await damage((path) => sparse(path, Buffer.alloc(0), GIB));
    await expectRefused(zeros, 'SESSION_LOG_CORRUPT', `${SUBJECT} is damaged: corrupt Zstandard session log: invalid frame magic at byte 0`);
    const header = headerFrame(healthyLog);
    const padded = await damage((path) => sparse(path, header, GIB));
    await expectRefused(padded, 'SESSION_LOG_CORRUPT', `${SUBJECT} is damaged: corrupt Zstandard session log: invalid frame magic at byte ${header.length}`);
  });

  it('a log over 2 GiB is SESSION_LOG_TOO_LARGE, named; one of exactly 2 GiB - 1 bytes is read as far as its damage', async () => {
    for (const size of [MAX_LOG_BYTES + 1, 2.5 * GIB]) {
      const root = await damage((path) => sparse(path, healthyLog, size));
      const shown = `${(size / GIB).toFixed(1)} GiB (${size} bytes)`;
      await expectRefused(root, 'SESSION_LOG_TOO_LARGE', `${SUBJECT} is ${shown}, over the ${MAX_LOG_BYTES} bytes dsh's JSONL persistence can read a log in`);
    }
    const root = await damage((path) => sparse(path, headerFrame(healthyLog), MAX_LOG_BYTES));
    expect(expectFailure(await sessref(['show', 'flaky-ci', '--root', root]), 2, 'SESSION_LOG_CORRUPT')).toMatch(/invalid frame magic at byte \d+$/);
  });
});

describe('memory and host reads, measured in a child process', () => {
  const CLI = fileURLToPath(new URL('../', import.meta.url));

  /** Run the built engine over `root` in a fresh Node: warm up on healthy sessions, then list and show the hostile one. */
  async function measure(root: string): Promise<{ growthKiB: number; codes: string[]; hostPaths: string[] }> {
    const source = `
      import { JsonlSessionPersistence } from '@deepseek-ai/dsh-session-persistence-jsonl';
      import { Engine } from './dist/engine/engine.js';
      import { explainMissing, listSessions } from './dist/engine/listing.js';
      const root = process.argv[1];
      // Every path the host itself opens or reads.
      const hostPaths = [];
      for (const method of ['readStableFile', 'readFirstZstdLine', 'readFirstLine', 'exists']) {
        const original = JsonlSessionPersistence.prototype[method];
        JsonlSessionPersistence.prototype[method] = function (path, ...rest) { hostPaths.push(path); return original.call(this, path, ...rest); };
      }
      const engine = await Engine.open({ root });
      await engine.show('scratchpad');
      await engine.show('research-log');
      const before = process.resourceUsage().maxRSS;
      hostPaths.length = 0;
      const codes = [];
      for (let round = 0; round < 2; round++) {
        const listed = await listSessions(engine);
        codes.push(listed.find((session) => session.sessionId === 'flaky-ci')?.readError?.code);
        codes.push(await engine.show('flaky-ci').then(() => 'read', async (error) => (await explainMissing(engine, error)).code));
      }
      const growthKiB = process.resourceUsage().maxRSS - before;
      await engine.close();
      process.stdout.write(JSON.stringify({ growthKiB, codes, hostPaths: hostPaths.filter((path) => path.includes('flaky-ci')) }));
    `;
    const { code, stdout, stderr } = await finished(spawn(process.execPath, ['--input-type=module', '-e', source, root], { cwd: CLI, stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 }));
    if (code !== 0) throw new Error(`child exited ${code}: ${stderr}`);
    return JSON.parse(stdout) as { growthKiB: number; codes: string[]; hostPaths: string[] };
  }

  it.each([
    ['1 GiB of zeros', (path: string) => sparse(path, Buffer.alloc(0), GIB), 'SESSION_LOG_CORRUPT'],
    ['a real header, then 1 GiB of zeros', (path: string) => sparse(path, headerFrame(healthyLog), GIB), 'SESSION_LOG_CORRUPT'],
    ['a crafted header frame of 64 MiB', (path: string) => sparse(path, CRAFTED_HEAD, 64 * MIB), 'SESSION_LOG_HEADER_TOO_LARGE'],
    ['2.5 GiB', (path: string) => sparse(path, healthyLog, 2.5 * GIB), 'SESSION_LOG_TOO_LARGE'],
  ] as const)('%s: listing and show grow the peak RSS by less than 64 MiB, and the host never opens it', async (name, make, code) => {
    const root = await copyRoot(seeded);
    make(logPath(root, 'flaky-ci', WEBAPP));
    const { growthKiB, codes, hostPaths } = await measure(root);
    console.log(`${name}: peak RSS growth ${(growthKiB / 1024).toFixed(1)} MiB over listing twice and showing it twice`);
    expect(codes).toEqual([code, code, code, code]);
    expect(hostPaths).toEqual([]);
    expect(growthKiB).toBeLessThan(64 * 1024);
    await rm(root, { recursive: true, force: true });
  });
});
