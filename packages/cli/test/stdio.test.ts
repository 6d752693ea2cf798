/**
 * The command line's standard output and error (src/stdio.ts), each in a
 * child process whose descriptor is a regular file, a pipe, /dev/null or a
 * pipe set non-blocking with no reader yet: every byte arrives, in order;
 * and `sessref` itself loads Node's stream modules only for a terminal.
 */
import { execFileSync, spawn, type ChildProcessByStdio } from 'node:child_process';
import { closeSync, constants, createReadStream, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath, pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, finished, removeTemps, requireBuild, tempDir } from './support';

const STDIO = pathToFileURL(fileURLToPath(new URL('../dist/stdio.js', import.meta.url))).href;

/**
 * Writes the texts of its JSON argument to standard output (or, given a
 * count instead, that many numbered 16 KiB blocks), then `written` on
 * standard error.
 */
const WRITER = `
import { allFlushed, standardOutput } from ${JSON.stringify(STDIO)};
const given = JSON.parse(process.argv[2]);
const out = standardOutput(1);
const texts = typeof given === 'number' ? Array.from({ length: given }, (_, index) => String(index).padStart(8, '0').repeat(2048)) : given;
for (const text of texts) out.write(text);
standardOutput(2).write('written\\n');
await allFlushed();
process.exit(0);
`;

/** Preloaded into `sessref`: the built-in modules it loaded, written at exit to the file SESSREF_PROBE names. */
const PROBE = `process.on('exit', () => require('node:fs').writeFileSync(process.env.SESSREF_PROBE, JSON.stringify(process.moduleLoadList)));`;

let dir: string;
let writer: string;
let probe: string;
beforeAll(async () => {
  requireBuild();
  dir = await tempDir('sessref-stdio-');
  writer = join(dir, 'writer.mjs');
  probe = join(dir, 'probe.cjs');
  writeFileSync(writer, WRITER);
  writeFileSync(probe, PROBE);
});
afterAll(removeTemps);

/** A child with its standard output on a descriptor of ours and its standard error piped (Node's types leave a descriptor's number out). */
type Writing = ChildProcessByStdio<null, null, Readable>;

function writing(argument: unknown, stdout: number): Writing {
  return spawn(process.execPath, [writer, JSON.stringify(argument)], { stdio: ['ignore', stdout, 'pipe'] }) as Writing;
}

/**
 * The same with standard output on `fd` as it is: Node makes a child's
 * standard descriptors blocking (for everyone sharing them), so `fd` goes
 * through as a fourth descriptor that bash moves into place.
 */
function writingAsIs(argument: unknown, fd: number): Writing {
  return spawn('bash', ['-c', 'exec "$0" "$1" "$2" >&3 3>&-', process.execPath, writer, JSON.stringify(argument)], { stdio: ['ignore', 'ignore', 'pipe', fd] }) as Writing;
}

/** The child's exit status and standard error, once it is done. */
async function exited(child: Writing): Promise<{ code: number | null; stderr: string }> {
  const errors: Buffer[] = [];
  child.stderr.on('data', (chunk: Buffer) => errors.push(chunk));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, stderr: Buffer.concat(errors).toString() };
}

/** `run` with a descriptor open on `path`, closed once the child has it. */
async function onDescriptor(path: string, run: (fd: number) => Writing): Promise<{ code: number | null; stderr: string }> {
  const fd = openSync(path, 'w');
  try {
    return await exited(run(fd));
  } finally {
    closeSync(fd);
  }
}

describe('standard output', () => {
  it('to a regular file: every text whole, in order', async () => {
    const path = join(dir, 'out.txt');
    await fc.assert(
      fc.asyncProperty(fc.array(fc.string({ unit: 'binary', maxLength: 300 }), { maxLength: 8 }), async (texts) => {
        expect(await onDescriptor(path, (fd) => writing(texts, fd))).toEqual({ code: 0, stderr: 'written\n' });
        expect(readFileSync(path)).toEqual(Buffer.from(texts.join('')));
      }),
      { numRuns: 12 },
    );
  });

  it('to a pipe and to /dev/null', async () => {
    const texts = ['one line\n', 'é, 漢字 and 🙂\n'];
    const piped = spawn(process.execPath, [writer, JSON.stringify(texts)], { stdio: ['ignore', 'pipe', 'pipe'] });
    expect(await finished(piped)).toMatchObject({ code: 0, stdout: texts.join(''), stderr: 'written\n' });
    expect(await onDescriptor('/dev/null', (fd) => writing(texts, fd))).toEqual({ code: 0, stderr: 'written\n' });
  });

  it('to a non-blocking pipe nobody reads yet: what would block goes through Node\'s stream, nothing lost or reordered', async () => {
    const fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    // Opened without blocking, then the writer set non-blocking: what a parent that shares its own non-blocking pipe gives.
    const opening = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    const writerEnd = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
    const reader = openSync(fifo, constants.O_RDONLY);
    closeSync(opening);
    const blocks = 64; // 1 MiB: sixteen times what the pipe holds
    const child = writingAsIs(blocks, writerEnd);
    const done = exited(child);
    closeSync(writerEnd);
    // Read only once the child has handed over everything it had: the pipe filled long before.
    await new Promise((resolve) => child.stderr.once('data', resolve));
    const chunks: Buffer[] = [];
    for await (const chunk of createReadStream('', { fd: reader })) chunks.push(chunk as Buffer);
    const expected = Array.from({ length: blocks }, (_, index) => String(index).padStart(8, '0').repeat(2048)).join('');
    expect(Buffer.concat(chunks).toString()).toBe(expected);
    expect(await done).toEqual({ code: 0, stderr: 'written\n' });
  });
});

describe('sessref', () => {
  it('loads no stream module to write to a pipe, a file or /dev/null', async () => {
    const loaded = join(dir, 'loaded.json');
    // What making a writable stream loads (Node's own start loads a few stream utilities).
    const streamsLoaded = () => (JSON.parse(readFileSync(loaded, 'utf8')) as string[]).includes('NativeModule internal/streams/writable');
    const args = ['--require', probe, BIN, '--version'];
    const env = { ...process.env, SESSREF_PROBE: loaded };
    expect(await finished(spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env }))).toMatchObject({ code: 0, stdout: expect.stringMatching(/^sessref \d/) });
    expect(streamsLoaded()).toBe(false);
    for (const path of [join(dir, 'version.txt'), '/dev/null']) {
      expect(await onDescriptor(path, (fd) => spawn(process.execPath, args, { stdio: ['ignore', fd, 'pipe'], env }) as Writing)).toEqual({ code: 0, stderr: '' });
      expect(streamsLoaded(), path).toBe(false);
    }
  });
});
