/**
 * Derived files are replaced atomically, never written through a link
 * planted where a temporary file could go, and two threads of one process
 * writing one file at once never share a temporary file.
 */
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { setImmediate } from 'node:timers/promises';
import { Worker, threadId } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { replaceFileAtomically } from '../src/atomic-file.js';

const dir = mkdtempSync(join(tmpdir(), 'sessref-atomic-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The module itself, which a worker thread loads as Node strips its types (it imports Node's modules only). */
const ATOMIC_FILE = new URL('../src/atomic-file.ts', import.meta.url).href;
const SIZE = 256 * 1024;
/** A worker thread: `writes` replacements of `file` by `size` bytes of `fill`; posts how many failed. */
const WRITER = `
  const { parentPort, workerData } = require('node:worker_threads');
  import(workerData.module).then(({ replaceFileAtomically }) => {
    const bytes = Buffer.alloc(workerData.size, workerData.fill);
    let failed = 0;
    for (let i = 0; i < workerData.writes; i++) if (!replaceFileAtomically(workerData.file, bytes)) failed++;
    parentPort.postMessage(failed);
  });
`;

/** Whether `text` is one writer's whole content: SIZE times one character. */
const wholeFill = (text: string) => text.length === SIZE && text === text[0]!.repeat(SIZE);

describe('replaceFileAtomically', () => {
  it('writes the new content whole, creating the directory, and leaves no temporary file', () => {
    const file = join(dir, 'cache', 'index.json');
    expect(replaceFileAtomically(file, Buffer.from('one'))).toBe(true);
    expect(replaceFileAtomically(file, Buffer.from('two'))).toBe(true);
    expect(readFileSync(file, 'utf8')).toBe('two');
    expect(readdirSync(join(dir, 'cache'))).toEqual(['index.json']);
  });

  it('never writes through a symbolic link planted at a name it could have used, and leaves the link', () => {
    const file = join(dir, 'planted', 'index.json');
    mkdirSync(join(dir, 'planted'));
    const victim = join(dir, 'victim.txt');
    writeFileSync(victim, 'keep me');
    // The names a temporary file got before it had a thread id and a random part: the only ones guessable.
    const guesses = [`${file}.${process.pid}.tmp`, `${file}.${process.pid}.${threadId}.tmp`];
    for (const guess of guesses) symlinkSync(victim, guess);
    expect(replaceFileAtomically(file, Buffer.from('saved'))).toBe(true);
    expect(readFileSync(victim, 'utf8')).toBe('keep me');
    expect(readFileSync(file, 'utf8')).toBe('saved');
    expect(lstatSync(file).isSymbolicLink()).toBe(false);
    expect(readdirSync(join(dir, 'planted')).sort()).toEqual(['index.json', ...guesses.map((guess) => basename(guess))].sort());
  });

  it('lets two worker threads of one process replace one file at once: every write lands whole, none collides', async () => {
    const file = join(dir, 'threads', 'index.json');
    const done: Promise<number>[] = ['a', 'b'].map((fill) => new Promise((resolve, reject) => {
      const worker = new Worker(WRITER, { eval: true, workerData: { module: ATOMIC_FILE, file, size: SIZE, fill, writes: 200 } });
      worker.once('message', resolve);
      worker.once('error', reject);
    }));
    // Read while they write: always one writer's whole content.
    let writing = true;
    const reads = Promise.all(done).finally(() => (writing = false));
    while (writing) {
      if (existsSync(file)) expect(wholeFill(readFileSync(file, 'latin1'))).toBe(true);
      await setImmediate();
    }
    expect(await reads).toEqual([0, 0]);
    expect(wholeFill(readFileSync(file, 'latin1'))).toBe(true);
    expect(readdirSync(join(dir, 'threads'))).toEqual(['index.json']);
  });

  it('reports a file it cannot write, leaving nothing behind', () => {
    const blocker = join(dir, 'blocker');
    writeFileSync(blocker, 'a file where a directory should be');
    expect(replaceFileAtomically(join(blocker, 'index.json'), Buffer.from('x'))).toBe(false);
    expect(readFileSync(blocker, 'utf8')).toBe('a file where a directory should be');
  });
});
