/**
 * The persisted listing cache: a fresh source (what a new process has) lists
 * from the cache without reading a transcript whose revision is unchanged,
 * reads again what changed, drops what is gone, and treats a damaged,
 * foreign or planted cache file as absent, never failing a listing.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type * as Platform from '@sessref/platform';
import { PROCESS_LISTINGS } from '@sessref/platform';
import { claudeCodeFormat, localSources, transcriptSource, type TranscriptFormat } from '@sessref/sources';
import { listing } from './support.js';

/** The transcripts whose revision was taken, in order: every stat of one goes through the platform's `readRevision`. */
const statted = vi.hoisted((): string[] => []);
vi.mock('@sessref/platform', async (importOriginal) => {
  const platform = await importOriginal<typeof Platform>();
  const readRevision: typeof platform.readRevision = (path, regularOnly) => {
    if (path.endsWith('.jsonl')) statted.push(path);
    return platform.readRevision(path, regularOnly);
  };
  return { ...platform, readRevision };
});

const scratch = mkdtempSync(join(tmpdir(), 'sessref-listing-cache-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const START = Date.parse('2026-03-01T10:00:00.000Z');
let homes = 0;

/** A Claude Code home with its projects folder and a private cache directory beside it. */
function newHome(): { home: string; project: string; cacheFile: string } {
  const home = join(scratch, `home-${(homes += 1)}`);
  const project = join(home, '.claude', 'projects', '-work-repo');
  mkdirSync(project, { recursive: true });
  mkdirSync(join(home, 'cache'), { mode: 0o700 });
  return { home, project, cacheFile: join(home, 'cache', 'listing.json') };
}

const uuid = (n: number) => `${n.toString(16).padStart(8, '0')}-0000-4000-8000-000000000000`;

/** A two-record transcript started `minutes` after START, titled `title`, with `padding` characters of reply. */
function transcript(minutes: number, title: string, padding = 0): string {
  const timestamp = new Date(START + minutes * 60_000).toISOString();
  const lines = [
    { type: 'user', uuid: 'u1', parentUuid: null, sessionId: 's', cwd: `/work/repo-${minutes}`, timestamp, message: { role: 'user', content: `prompt ${minutes}` } },
    { type: 'assistant', uuid: 'a1', parentUuid: 'u1', sessionId: 's', cwd: `/work/repo-${minutes}`, timestamp, message: { id: 'm1', role: 'assistant', content: [{ type: 'text', text: `reply ${'x'.repeat(padding)}` }] } },
    { type: 'custom-title', customTitle: title },
  ];
  return lines.map((line) => `${JSON.stringify(line)}\n`).join('');
}

/** Claude Code's format, counting the transcripts it is handed to decode: one per file read. */
function counting(): { format: TranscriptFormat; reads: string[] } {
  const reads: string[] = [];
  const format: TranscriptFormat = {
    ...claudeCodeFormat,
    decode: (bytes, file) => {
      reads.push(file.nativeId);
      return bytes.toString('utf8');
    },
  };
  return { format, reads };
}

/** Bytes this process has read through system calls so far (Linux): a file-system observation no revision field sees. */
function bytesRead(): number {
  return Number(/^rchar: (\d+)$/m.exec(readFileSync('/proc/self/io', 'utf8'))?.[1]);
}

describe('the listing cache', () => {
  it.runIf(existsSync('/proc/self/io'))('lets a fresh source list without reading an unchanged transcript, and reads a changed one again', async () => {
    const { home, project, cacheFile } = newHome();
    const size = 2 * 1024 * 1024;
    for (let n = 1; n <= 3; n += 1) writeFileSync(join(project, `${uuid(n)}.jsonl`), transcript(n, `Session ${n}`, size));
    const environment = { home, env: {} };
    const first = await listing(transcriptSource(claudeCodeFormat, { environment, listingCacheFile: cacheFile }));
    expect(statSync(cacheFile).size).toBeLessThan(64 * 1024);

    // A new source has nothing in memory: what it lists comes from the cache file, 6 MiB of transcripts unread.
    const before = bytesRead();
    const warm = await listing(transcriptSource(claudeCodeFormat, { environment, listingCacheFile: cacheFile }));
    const warmRead = bytesRead() - before;
    expect(warm).toEqual(first);
    expect(warmRead).toBeLessThan(size / 2);

    // An append changes the revision: that transcript alone is read again, and its new title listed.
    appendFileSync(join(project, `${uuid(2)}.jsonl`), `${JSON.stringify({ type: 'custom-title', customTitle: 'Renamed' })}\n`);
    const again = bytesRead();
    const changed = (await listing(transcriptSource(claudeCodeFormat, { environment, listingCacheFile: cacheFile }))) as { titles: string[] };
    const changedRead = bytesRead() - again;
    expect(changed.titles).toEqual(['Claude Code · Session 3', 'Claude Code · Renamed', 'Claude Code · Session 1']);
    expect(changedRead).toBeGreaterThan(size);
    expect(changedRead).toBeLessThan(2 * size);
  });

  it('writes its file only in the directory it is given, never in the agent\'s home', async () => {
    const { home, project } = newHome();
    writeFileSync(join(project, `${uuid(1)}.jsonl`), transcript(1, 'One'));
    const before = readdirSync(join(home, '.claude'), { recursive: true }).sort();
    const cacheDir = join(home, 'sessref-cache');
    const [local] = localSources({ home, env: { SESSREF_CACHE_DIR: cacheDir } }, ['claude-code']);
    await listing(local!.source);
    expect(readdirSync(join(home, '.claude'), { recursive: true }).sort()).toEqual(before);
    expect(readdirSync(cacheDir)).toEqual([expect.stringMatching(/^listing-claude-code-[0-9a-f]{16}\.v1\.json$/)]);
    expect(statSync(cacheDir).mode & 0o777).toBe(0o700);
  });

  it('lets a run that reads one session (show, mention) stat its transcript alone, and its first listing stat them all', async () => {
    const { home, project, cacheFile } = newHome();
    const paths = [1, 2, 3].map((n) => join(project, `${uuid(n)}.jsonl`));
    paths.forEach((path, index) => writeFileSync(path, transcript(index + 1, `Session ${index + 1}`)));
    const environment = { home, env: {} };
    await listing(transcriptSource(claudeCodeFormat, { environment, listingCacheFile: cacheFile }));
    const letGo = PROCESS_LISTINGS.holdFirstLook();
    try {
      const source = transcriptSource(claudeCodeFormat, { environment, listingCacheFile: cacheFile });
      statted.length = 0;
      const id = `claude-code:${uuid(2)}`;
      expect(await source.readTitles([id])).toEqual([{ sessionId: id, status: 'fulfilled', title: 'Claude Code · Session 2' }]);
      expect((await source.readSurface(id)).messages.length).toBeGreaterThan(0);
      expect(new Set(statted)).toEqual(new Set([paths[1]]));
      expect(await source.listSessions()).toHaveLength(3);
      expect(new Set(statted)).toEqual(new Set(paths));
    } finally {
      letGo();
    }
  });

  it('is not trusted over a transcript whose revision differs from the entry\'s, even when edited to say otherwise', async () => {
    const { home, project, cacheFile } = newHome();
    writeFileSync(join(project, `${uuid(1)}.jsonl`), transcript(1, 'Real title'));
    const environment = { home, env: {} };
    await listing(transcriptSource(claudeCodeFormat, { environment, listingCacheFile: cacheFile }));
    const document = JSON.parse(readFileSync(cacheFile, 'utf8')) as { entries: Record<string, { revision: string; facts: { title: string } }> };
    const entry = Object.values(document.entries)[0]!;
    entry.facts.title = 'Planted title';
    // The token's third field is the size: one byte more is another revision of the same file.
    const fields = entry.revision.split(':');
    fields[2] = String(Number(fields[2]) + 1);
    entry.revision = fields.join(':');
    writeFileSync(cacheFile, JSON.stringify(document));
    const { format, reads } = counting();
    const listed = (await listing(transcriptSource(format, { environment, listingCacheFile: cacheFile }))) as { titles: string[] };
    expect(listed.titles).toEqual(['Claude Code · Real title']);
    expect(reads).toEqual([uuid(1)]);
  });

  it('is neither read nor written in a directory other users may write into', async () => {
    const { home, project } = newHome();
    writeFileSync(join(project, `${uuid(1)}.jsonl`), transcript(1, 'One'));
    const shared = join(home, 'shared-cache');
    mkdirSync(shared);
    chmodSync(shared, 0o777);
    const cacheFile = join(shared, 'listing.json');
    const { format, reads } = counting();
    await listing(transcriptSource(format, { environment: { home, env: {} }, listingCacheFile: cacheFile }));
    expect(existsSync(cacheFile)).toBe(false);
    // A file planted there is not believed either.
    chmodSync(shared, 0o700);
    await listing(transcriptSource(format, { environment: { home, env: {} }, listingCacheFile: cacheFile }));
    expect(existsSync(cacheFile)).toBe(true);
    chmodSync(shared, 0o777);
    await listing(transcriptSource(format, { environment: { home, env: {} }, listingCacheFile: cacheFile }));
    expect(reads).toEqual([uuid(1), uuid(1), uuid(1)]);
  });

  it('labels what a listing just verified from that listing, and checks the file again once the event loop has turned', async () => {
    const { home, project } = newHome();
    writeFileSync(join(project, `${uuid(1)}.jsonl`), transcript(1, 'Before'));
    const source = transcriptSource(claudeCodeFormat, { environment: { home, env: {} } });
    const [header] = await source.listSessions();
    appendFileSync(join(project, `${uuid(1)}.jsonl`), `${JSON.stringify({ type: 'custom-title', customTitle: 'After' })}\n`);
    const label = async () => ((await source.readTitles([header!.id]))[0] as { title: string }).title;
    expect(await label()).toBe('Claude Code · Before');
    await new Promise((resolve) => setImmediate(resolve));
    expect(await label()).toBe('Claude Code · After');
  });

  /** What may happen between two listings: to a session's file, or to the cache file. */
  type Step =
    | { kind: 'write'; session: number; title: string }
    | { kind: 'append'; session: number; title: string }
    | { kind: 'replace'; session: number; title: string }
    | { kind: 'damage'; session: number; title: string }
    | { kind: 'delete'; session: number }
    | { kind: 'cache'; how: CacheDamage };

  const session = fc.integer({ min: 1, max: 4 });
  const title = fc.string({ minLength: 1, maxLength: 12 }).filter((text) => text.trim() !== '');
  const step: fc.Arbitrary<Step> = fc.oneof(
    fc.record({ kind: fc.constantFrom('write' as const, 'append' as const, 'replace' as const, 'damage' as const), session, title }),
    fc.record({ kind: fc.constant('delete' as const), session }),
    fc.record({
      kind: fc.constant('cache' as const),
      how: fc.constantFrom<CacheDamage>('garbage', 'truncated', 'empty', 'other-version', 'other-home', 'other-reader', 'bad-entry', 'fifo', 'directory', 'missing'),
    }),
  );

  it('answers as a listing without cache after any changes to the transcripts and any damage to the cache, reading only what changed', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 8 }), async (steps) => {
        const { home, project, cacheFile } = newHome();
        const environment = { home, env: {} };
        const path = (n: number) => join(project, `${uuid(n)}.jsonl`);
        for (const [index, current] of steps.entries()) {
          /** Sessions whose file changed since the last listing: the only ones a warm listing may read. */
          const changed = new Set<number>();
          const file = path(current.kind === 'cache' ? 0 : current.session);
          switch (current.kind) {
            case 'write':
              if (existsSync(file)) appendFileSync(file, '\n');
              else writeFileSync(file, transcript(index, current.title));
              break;
            case 'append':
              if (existsSync(file)) appendFileSync(file, `${JSON.stringify({ type: 'custom-title', customTitle: current.title })}\n`);
              break;
            case 'replace':
              // A new file renamed over the old one: another inode.
              writeFileSync(`${file}.new`, transcript(index, current.title));
              renameSync(`${file}.new`, file);
              break;
            case 'damage':
              appendFileSync(file, `{not json ${JSON.stringify(current.title)}}\n`);
              break;
            case 'delete':
              rmSync(file, { force: true });
              break;
            case 'cache':
              damageCache(cacheFile, current.how);
              break;
          }
          if (current.kind !== 'delete' && current.kind !== 'cache' && existsSync(file)) changed.add(current.session);
          const cacheUsable = current.kind !== 'cache' && statSync(cacheFile, { throwIfNoEntry: false })?.isFile() === true;
          const truth = await listing(transcriptSource(claudeCodeFormat, { environment }));
          const { format, reads } = counting();
          expect(await listing(transcriptSource(format, { environment, listingCacheFile: cacheFile }))).toEqual(truth);
          const present = [1, 2, 3, 4].filter((n) => existsSync(path(n)));
          const expected = cacheUsable ? present.filter((n) => changed.has(n)) : present;
          expect(reads.sort()).toEqual(expected.map(uuid).sort());
          // A directory at the cache's path cannot be replaced (it is removed for the next step); anything else is rebuilt as a regular file.
          if (statSync(cacheFile, { throwIfNoEntry: false })?.isDirectory() === true) rmSync(cacheFile, { recursive: true });
          else expect(statSync(cacheFile).isFile()).toBe(true);
        }
      }),
      { numRuns: 40 },
    );
  });
});

type CacheDamage = 'garbage' | 'truncated' | 'empty' | 'other-version' | 'other-home' | 'other-reader' | 'bad-entry' | 'fifo' | 'directory' | 'missing';

/** Damage the cache file (or what stands at its path) one way. Every way leaves nothing of it usable. */
function damageCache(file: string, how: CacheDamage): void {
  const text = statSync(file, { throwIfNoEntry: false })?.isFile() === true ? readFileSync(file, 'utf8') : '{}';
  const edit = (change: (document: Record<string, unknown>) => void) => {
    const document = JSON.parse(text) as Record<string, unknown>;
    change(document);
    writeFileSync(file, JSON.stringify(document));
  };
  rmSync(file, { recursive: true, force: true });
  switch (how) {
    case 'garbage':
      return writeFileSync(file, '\u0000\u00ff not a cache');
    case 'truncated':
      return writeFileSync(file, text.slice(0, Math.floor(text.length / 2)));
    case 'empty':
      return writeFileSync(file, '');
    case 'other-version':
      return edit((document) => (document['version'] = Number(document['version']) + 1));
    case 'other-home':
      return edit((document) => (document['home'] = '/elsewhere'));
    case 'other-reader':
      return edit((document) => (document['reader'] = 'another build'));
    case 'bad-entry':
      // Every entry's revision is of another shape: each is left out, so every session is read again.
      return edit((document) => {
        for (const entry of Object.values((document['entries'] ?? {}) as Record<string, Record<string, unknown>>)) entry['revision'] = ['not', 'a', 'token'];
      });
    case 'fifo':
      return void execFileSync('mkfifo', [file]);
    case 'directory':
      return void mkdirSync(file);
    case 'missing':
      return;
  }
}
