/**
 * The title index's files when something else sits at their names: a FIFO, a
 * unix socket, a character device (mknod 1:5, /dev/zero's numbers, where
 * root may make one) or a directory at the cache file or at the name a
 * save's temporary file would have were it guessable, and in a log's place
 * for the stat walk. Nothing waits on them: each case runs the built module
 * in a child process under a deadline, so an open that waited would fail
 * the test instead of hanging the suite.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { deviceSupport } from '@sessref/test-support';

const DIST = fileURLToPath(new URL('../dist/', import.meta.url));
const DEADLINE_MS = 20_000;

const DEVICE = deviceSupport();

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sessref-dsh-special-'));
  dirs.push(dir);
  return dir;
}

/**
 * Run `body` (an ES module body) in a child Node process with `make(kind,
 * path)` (puts a special file at a path; sockets stay open until the end),
 * the built index-file, log-files and regular-file modules, and `args`; resolves to what it
 * prints as JSON.
 */
function child<T>(body: string, args: Record<string, unknown>): Promise<T> {
  const source = `
    import { execFileSync } from 'node:child_process';
    import { mkdirSync } from 'node:fs';
    import { createServer } from 'node:net';
    import { loadIndex, saveIndex } from ${JSON.stringify(join(DIST, 'title-index/index-file.js'))};
    import { LogFileTracker } from ${JSON.stringify(join(DIST, 'jsonl-root/log-files.js'))};
    import { readRegularFile } from ${JSON.stringify(join(DIST, '../../platform/dist/regular-file.js'))};
    const servers = [];
    async function make(kind, path) {
      if (kind === 'FIFO') execFileSync('mkfifo', [path]);
      else if (kind === 'device') execFileSync('mknod', [path, 'c', '1', '5']);
      else if (kind === 'directory') mkdirSync(path);
      else { const server = createServer(); servers.push(server); await new Promise((resolve) => server.listen(path, resolve)); }
    }
    const args = JSON.parse(process.argv[1]);
    const result = await (async () => { ${body} })();
    process.stdout.write(JSON.stringify(result));
    for (const server of servers) server.close();
  `;
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['--input-type=module', '-e', source, JSON.stringify(args)], {
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: DEADLINE_MS,
      killSignal: 'SIGKILL',
    });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    proc.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    proc.on('close', (code, signal) => {
      if (signal === 'SIGKILL') reject(new Error(`the child waited until it was killed after ${DEADLINE_MS} ms: ${stderr}`));
      else if (code !== 0) reject(new Error(`the child failed (${code}): ${stderr}`));
      else resolve(JSON.parse(stdout) as T);
    });
  });
}

const KINDS = ['FIFO', 'socket', 'device', 'directory'] as const;
const skipFor = (kind: (typeof KINDS)[number]) => kind === 'device' && !DEVICE.ok;
const named = (kind: (typeof KINDS)[number], title: string) => (skipFor(kind) ? `${title} (skipped: ${DEVICE.reason})` : title);

const ENTRY = { revision: '1:2:3:4', header: { id: 'a', createdAt: 1 }, title: 'Alpha' };

describe.each(KINDS)('a %s at the title index file', (kind) => {
  it.skipIf(skipFor(kind))(named(kind, 'loads as no index, and a save replaces it (a directory: the save gives up quietly)'), async () => {
    const dir = tempDir();
    const result = await child<{ before: number; after: unknown[] }>(
      `
        const file = args.dir + '/titles.json';
        await make(args.kind, file);
        const before = loadIndex(file, '/root').entries.size;
        saveIndex(file, '/root', new Map([['a', args.entry]]));
        return { before, after: [...loadIndex(file, '/root').entries] };
      `,
      { dir, kind, entry: ENTRY },
    );
    expect(result.before).toBe(0);
    expect(result.after).toEqual(kind === 'directory' ? [] : [['a', ENTRY]]);
  });

  it.skipIf(skipFor(kind))(named(kind, "at the name a save's temporary file would have if it were guessable (the process id alone): the save never uses it, leaves it, and writes its file"), async () => {
    const dir = tempDir();
    const result = await child<{ saved: unknown[]; left: boolean }>(
      `
        const { existsSync } = await import('node:fs');
        const file = args.dir + '/titles.json';
        const planted = file + '.' + process.pid + '.tmp';
        await make(args.kind, planted);
        saveIndex(file, '/root', new Map([['a', args.entry]]));
        return { saved: [...loadIndex(file, '/root').entries], left: existsSync(planted) };
      `,
      { dir, kind, entry: ENTRY },
    );
    expect(result).toEqual({ saved: [['a', ENTRY]], left: true });
  });
});

describe('readRegularFile', () => {
  it.each(KINDS.filter((kind) => !skipFor(kind)))('refuses a %s without opening it, and reads a regular file up to its limit', async (kind) => {
    const dir = tempDir();
    const result = await child<{ special: string; small: string; large: string; absent: null | string }>(
      `
        const special = args.dir + '/special';
        await make(args.kind, special);
        const attempt = (path, max) => { try { const bytes = readRegularFile(path, max); return bytes === undefined ? null : bytes.toString(); } catch (error) { return error.code; } };
        const { writeFileSync } = await import('node:fs');
        writeFileSync(args.dir + '/small', 'hello');
        return { special: attempt(special, 1024), small: attempt(args.dir + '/small', 5), large: attempt(args.dir + '/small', 4), absent: attempt(args.dir + '/none', 4) };
      `,
      { dir, kind },
    );
    expect(result).toEqual({ special: 'ENOTREGULAR', small: 'hello', large: 'EFBIG', absent: null });
  });
});

describe('the log stat walk', () => {
  it.each([false, true])('leaves out a log that is a FIFO, a socket, a device or a directory (watching: %s)', async (watching) => {
    const root = tempDir();
    const kinds = KINDS.filter((kind) => !skipFor(kind));
    const revisions = await child<string[]>(
      `
        const { mkdirSync, writeFileSync } = await import('node:fs');
        mkdirSync(args.root + '/--p--/healthy', { recursive: true });
        writeFileSync(args.root + '/--p--/healthy/session.jsonl.zstd', 'x');
        for (const kind of args.kinds) {
          mkdirSync(args.root + '/--p--/' + kind, { recursive: true });
          await make(kind, args.root + '/--p--/' + kind + '/session.jsonl.zstd');
        }
        const tracker = new LogFileTracker(args.root, 'zstd', args.watching);
        const first = await tracker.revisions();
        const second = await tracker.revisions();
        tracker.close();
        return [...first.keys(), ...second.keys()];
      `,
      { root, kinds, watching },
    );
    expect(revisions).toEqual(['healthy', 'healthy']);
  });
});
