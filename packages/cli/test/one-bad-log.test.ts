/**
 * One bad log costs one read (#31 item 3). A root of healthy sessions with
 * one log of each kind of damage beside them: a new engine over the derived
 * files a first one left (what a fresh `sessref` process opens) lists, shows,
 * searches and cites the healthy sessions, flags each damaged one, and reads
 * no more than the logs it was asked about. The bytes this process reads
 * (`rchar` of /proc/self/io) are the count: a listing that fell back to a
 * whole-root walk reads every healthy log whole, many times what any of these
 * steps may read. Content search reads sessref's own index, so it is held to
 * what the same search reads over the same root without the damaged logs.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { dirname, join } from 'node:path';
import zlib, { constants, zstdCompressSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { framePerRecord, writeGeneration, type Step } from '@sessref/test-support';
import { classify } from '../src/classify.js';
import { explainMissing, listSessions } from '../src/engine/listing.js';
import { Engine } from '../src/engine/engine.js';
import { HostSide } from '../src/engine/host-side.js';
import { logPath, tempDir } from './support.js';

const CWD = '/work/app';
const HEALTHY = Array.from({ length: 24 }, (_, index) => `healthy-${String(index).padStart(2, '0')}`);

/** Words a compressor cannot shrink much, so every log weighs about what its text does. */
function noise(seed: number, words: number): string {
  let state = seed;
  const out: string[] = [];
  for (let index = 0; index < words; index += 1) {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    out.push(state.toString(36));
  }
  return out.join(' ');
}

/** Sixty exchanges of ~1.3 KB each, the last naming the session, and a title. */
function conversation(id: string, seed: number): Step[] {
  const exchanges: Step[] = Array.from({ length: 60 }, (_, turn) => ({ kind: 'exchange', user: noise(seed * 1000 + turn, 100), assistant: noise(seed * 1000 + turn + 500, 100) }));
  return [...exchanges, { kind: 'exchange', user: `What about marker${id.replace('-', '')}?`, assistant: 'Noted.' }, { kind: 'title', title: `Title of ${id}` }];
}

function writeLog(path: string, generation: number, id: string, steps: readonly Step[]): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, framePerRecord(writeGeneration(generation, steps, { id, createdAt: 1_700_000_000_000 + Number(id.length), cwd: CWD })));
}

/** Each kind of damage a real home can hold, as a session directory beside the healthy ones. */
const DAMAGE: Record<string, (root: string) => void> = {
  corrupt: (root) => writeFile(logPath(root, 'corrupt', CWD), 'not a zstd frame at all'),
  truncated: (root) => writeFile(logPath(root, 'truncated', CWD), readFileSync(logPath(root, HEALTHY[0]!, CWD)).subarray(0, 12)),
  'unknown-generation': (root) => writeLog(join(dirname(logPath(root, 'unknown-generation', CWD)), 'session.v5.jsonl.zstd'), 5, 'unknown-generation', [{ kind: 'title', title: 'v5' }]),
  'other-header': (root) => writeLog(logPath(root, 'other-header', CWD), 0, HEALTHY[1]!, [{ kind: 'title', title: 'a copy' }]),
  directory: (root) => mkdirSync(logPath(root, 'directory', CWD), { recursive: true }),
  fifo: (root) => (mkdirSync(dirname(logPath(root, 'fifo', CWD)), { recursive: true }), execFileSync('mkfifo', [logPath(root, 'fifo', CWD)])),
  dangling: (root) => (mkdirSync(dirname(logPath(root, 'dangling', CWD)), { recursive: true }), symlinkSync('nowhere.zstd', logPath(root, 'dangling', CWD))),
  // A log that is a symbolic link to itself: its stat fails with ELOOP (#37 item 2).
  loop: (root) => (mkdirSync(dirname(logPath(root, 'loop', CWD)), { recursive: true }), symlinkSync('session.jsonl.zstd', logPath(root, 'loop', CWD))),
  // A few KiB of v3 log whose last frame stands for 48 MiB of messages: over its plaintext budget (#37 item 1).
  bomb: (root) => writeFile(join(dirname(logPath(root, 'bomb', CWD)), 'session.v3.jsonl.zstd'), bomb('bomb', 3)),
  // The same in a v0 log (rc.8's name), which sessref's reader decodes as it does every generation.
  'bomb-v0': (root) => writeFile(logPath(root, 'bomb-v0', CWD), bomb('bomb-v0', 0)),
};

/** A healthy log's first exchange, then one frame of six user messages of 8 MiB each. */
function bomb(id: string, generation: number): Buffer {
  const lines = writeGeneration(generation, [{ kind: 'exchange', user: 'hi', assistant: 'ok' }], { id, createdAt: 1_700_000_000_000, cwd: CWD }).trimEnd().split('\n');
  const text = 'a'.repeat(8 * 1024 * 1024);
  const messages = Array.from({ length: 6 }, (_, index) => {
    const seq = lines.length - 1 + index;
    return `${JSON.stringify({ type: 'user/message', seq, time: seq, data: { id: `u${seq}`, role: 'user', content: [{ type: 'text', text }], source: { kind: 'user' } }, surfaceOp: 'append' })}\n`;
  });
  return Buffer.concat([framePerRecord(`${lines.join('\n')}\n`), zstdCompressSync(Buffer.from(messages.join('')), { params: { [constants.ZSTD_c_checksumFlag]: 1 } })]);
}

function writeFile(path: string, content: string | Buffer): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
}

/** Plaintext Zstandard frames decompressed so far in this process (counted on Node's zlib, as every reader's named import sees it). */
let decompressed = 0;
const zstdDecompress = zlib.zstdDecompressSync;
zlib.zstdDecompressSync = (buffer, options) => {
  let plaintext: ReturnType<typeof zstdDecompress>;
  try {
    plaintext = zstdDecompress(buffer, options);
  } catch (error) {
    // Refused at its output bound: that much was decompressed first.
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') decompressed += options?.maxOutputLength ?? 0;
    throw error;
  }
  decompressed += plaintext.length;
  return plaintext;
};
syncBuiltinESMExports();

async function decompressing<T>(work: () => Promise<T>): Promise<{ value: T; bytes: number }> {
  const before = decompressed;
  let value: T;
  try {
    value = await work();
  } catch (error) {
    return { value: error as T, bytes: decompressed - before };
  }
  return { value, bytes: decompressed - before };
}

/** Bytes this process has read so far, through every file descriptor. */
function bytesRead(): number {
  return Number(/^rchar: (\d+)$/m.exec(readFileSync('/proc/self/io', 'utf8'))?.[1]);
}

async function counted<T>(work: () => Promise<T>): Promise<{ value: T; bytes: number }> {
  const before = bytesRead();
  const value = await work();
  return { value, bytes: bytesRead() - before };
}

/** A root and the cache directory its derived files live in. */
interface Place {
  root: string;
  cache: string;
}

let damaged: Place;
let clean: Place;
let largestLog: number;
let healthyBytes: number;

const open = ({ root, cache }: Place) => Engine.open({ root, indexFile: join(cache, 'titles.json'), searchIndexFile: join(cache, 'content.sqlite'), sources: [] });

/** A root of the healthy sessions, with the damaged ones beside them when `withDamage`, after a first engine left its derived files. */
async function place(withDamage: boolean): Promise<Place> {
  const dir = await tempDir('sessref-one-bad-log-');
  const made = { root: join(dir, 'sessions'), cache: join(dir, 'cache') };
  mkdirSync(made.cache, { mode: 0o700 });
  HEALTHY.forEach((id, index) => writeLog(logPath(made.root, id, CWD), 0, id, conversation(id, index + 1)));
  if (withDamage) for (const damage of Object.values(DAMAGE)) damage(made.root);
  // A first process: builds the title index, the kept headers and the content index.
  const first = await open(made);
  try {
    await listSessions(first);
    await first.search('markerhealthy03');
  } finally {
    await first.close();
  }
  return made;
}

beforeAll(async () => {
  damaged = await place(true);
  clean = await place(false);
  const sizes = HEALTHY.map((id) => statSync(logPath(damaged.root, id, CWD)).size);
  largestLog = Math.max(...sizes);
  healthyBytes = sizes.reduce((sum, size) => sum + size, 0);
});

describe.runIf(existsSync('/proc/self/io'))('one damaged log of each kind among healthy ones, in a new engine', () => {
  let engine: Engine;
  let control: Engine;
  beforeAll(async () => {
    engine = await open(damaged);
    control = await open(clean);
  });
  afterAll(async () => {
    await engine.close();
    await control.close();
  });

  it('the logs are large enough that a whole-root walk is many times any step', () => {
    expect(healthyBytes).toBeGreaterThan(20 * largestLog);
    expect(largestLog).toBeGreaterThan(100_000);
  });

  it('lists every healthy session and flags each damaged one, reading less than one log', async () => {
    const { value: listed, bytes } = await counted(() => listSessions(engine));
    const healthy = listed.filter((session) => session.readError === undefined).map((session) => session.sessionId);
    expect(healthy.sort()).toEqual(HEALTHY);
    const flagged = listed.filter((session) => session.readError !== undefined).map((session) => session.sessionId);
    expect(flagged.sort()).toEqual(Object.keys(DAMAGE).sort());
    expect(bytes).toBeLessThan(largestLog);
  });

  it('a refused decompression bomb is not decoded again by a new engine: listed, shown or searched', async () => {
    // What a decode of the bomb costs: its 32 MiB budget. The healthy logs' headers are a few KiB.
    const { value: listed, bytes: listing } = await decompressing(() => listSessions(engine));
    // The v3 bomb is left out of the listing (a v2+ log is read whole); the v0 one lists from its header line, and its title read is refused.
    for (const id of ['bomb', 'bomb-v0']) expect(classify(listed.find((session) => session.sessionId === id)?.readError)).toMatchObject({ code: 'SESSION_LOG_TOO_LARGE' });
    expect(listing).toBeLessThan(1024 * 1024);
    for (const id of ['bomb', 'bomb-v0']) {
      // What `sessref show` says of it: the host does not list it, and its damage explains the miss.
      const { value: refusal, bytes: showing } = await decompressing(() => engine.show(id).catch(async (error: unknown) => Promise.reject(await explainMissing(engine, error))));
      expect(classify(refusal)).toMatchObject({ code: 'SESSION_LOG_TOO_LARGE' });
      expect(showing).toBeLessThan(1024 * 1024);
    }
    const { bytes: searching } = await decompressing(() => engine.search('markerhealthy07'));
    expect(searching).toBeLessThan(1024 * 1024);
  });

  it('lists in a new engine without starting a dsh host or saving the title index again', async () => {
    const boot = vi.spyOn(HostSide, 'boot');
    const titles = join(damaged.cache, 'titles.json');
    const saved = statSync(titles).mtimeMs;
    const fresh = await open(damaged);
    try {
      await listSessions(fresh);
    } finally {
      await fresh.close();
    }
    // Each damaged log's refusal is kept by its revision: nothing asks dsh about it again, and nothing in the index changed.
    expect(boot).not.toHaveBeenCalled();
    expect(statSync(titles).mtimeMs).toBe(saved);
    boot.mockRestore();
  });

  it('lists again reading no log at all', async () => {
    const { bytes } = await counted(() => listSessions(engine));
    expect(bytes).toBeLessThan(largestLog / 4);
  });

  it('shows a healthy session reading that session, not the root', async () => {
    const { value: view, bytes } = await counted(() => engine.show(HEALTHY[5]!));
    expect(view.title).toBe(`Title of ${HEALTHY[5]!}`);
    expect(bytes).toBeLessThan(3 * largestLog);
  });

  it('searches the warm index reading no more than over the root without the damaged logs', async () => {
    const { value: hits, bytes } = await counted(() => engine.search('markerhealthy07'));
    expect(hits.map((hit) => hit.sessionId)).toEqual([HEALTHY[7]]);
    const { bytes: cleanBytes } = await counted(() => control.search('markerhealthy07'));
    expect(bytes).toBeLessThan(cleanBytes + largestLog / 4);
  });

  it('cites a healthy session reading that session, not the root', async () => {
    const mention = `@[x](dsh-session:${Buffer.from(JSON.stringify(HEALTHY[9])).toString('base64url')})`;
    const { value: step, bytes } = await counted(() => engine.preview(HEALTHY[2]!, `see ${mention}`));
    expect(step.messages).toHaveLength(2);
    expect(bytes).toBeLessThan(4 * largestLog);
  });
});
