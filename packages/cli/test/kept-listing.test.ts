/**
 * The root's own listing kept between processes (listing-memo.ts): a new
 * engine over a root that has not changed since the last listing answers
 * from the kept listing, opening neither the kept headers nor the title
 * index, and lists exactly what a full listing lists, damaged logs and all;
 * any change to a file of any session makes it list again. Real files and
 * real engines throughout. A root is trusted only once its files have not
 * changed for two seconds (see `rootFingerprint`), so these roots are left
 * to settle that long before the listings they test.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { framePerRecord, writeGeneration, type Step } from '@sessref/test-support';
import { classify } from '../src/classify.js';
import { listSessions, type ListedSession } from '../src/engine/listing.js';
import { Engine } from '../src/engine/engine.js';
import { CLAUDE_ID, demoRootAndClaudeHome } from './claude-home.js';
import { logPath, removeTemps, sessref, tempDir } from './support.js';

const CWD = '/work/app';
const HEALTHY = ['alpha', 'bravo', 'charlie', 'delta'];
/** Bytes no JSON file starts with. */
const GARBAGE = 'not a derived file \u0000\u0001';
/** A little longer than the time a file must be left alone before a fingerprint trusts it. */
const SETTLE_MS = 2_100;

function writeLog(root: string, id: string, title: string, generation = 0): void {
  const path = generation === 0 ? logPath(root, id, CWD) : join(dirname(logPath(root, id, CWD)), `session.v${generation}.jsonl.zstd`);
  const steps: Step[] = [{ kind: 'exchange', user: `hello from ${id}`, assistant: 'hi' }, { kind: 'title', title }];
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, framePerRecord(writeGeneration(generation, steps, { id, createdAt: 1_700_000_000_000 + id.length, cwd: CWD })));
}

/** A root and its cache directory, and the derived files an engine keeps there. */
interface Place {
  root: string;
  cache: string;
  listing: string;
  headers: string;
  titles: string;
}

async function place(): Promise<Place> {
  const dir = await tempDir('sessref-kept-listing-');
  const root = join(dir, 'sessions');
  const cache = join(dir, 'cache');
  mkdirSync(cache, { mode: 0o700 });
  for (const id of HEALTHY) writeLog(root, id, `Title of ${id}`);
  // A corrupt log and one of a generation sessref does not read, beside the healthy ones.
  mkdirSync(dirname(logPath(root, 'corrupt', CWD)), { recursive: true });
  writeFileSync(logPath(root, 'corrupt', CWD), 'not a zstd frame at all');
  writeLog(root, 'later', 'v5', 5);
  return { root, cache, listing: join(cache, 'content.sqlite.listing.json'), headers: join(cache, 'content.sqlite.headers.json'), titles: join(cache, 'titles.json') };
}

const open = ({ root, cache }: Place) => Engine.open({ root, indexFile: join(cache, 'titles.json'), searchIndexFile: join(cache, 'content.sqlite'), sources: [] });

/** What a listing shows of each session, a failure as every face describes it. */
function shown(listed: readonly ListedSession[]): unknown[] {
  return listed.map(({ readError, ...session }) => (readError === undefined ? session : { ...session, readError: classify(readError) }));
}

/** One engine's listing of `where`, and the notices it gave. */
async function listing(where: Place): Promise<{ shown: unknown[]; notices: string[] }> {
  const engine = await open(where);
  try {
    return { shown: shown(await listSessions(engine)), notices: engine.takeNotices() };
  } finally {
    await engine.close();
  }
}

afterAll(removeTemps);

describe('the kept listing', () => {
  let settled: Place;
  let first: unknown[];
  beforeAll(async () => {
    settled = await place();
    await sleep(SETTLE_MS);
    first = (await listing(settled)).shown;
  }, 30_000);

  it('is kept by a listing of a settled root, with every healthy session and each damaged log', () => {
    expect(existsSync(settled.listing)).toBe(true);
    expect(first.map((session) => (session as { sessionId: string }).sessionId).sort()).toEqual([...HEALTHY, 'corrupt', 'later'].sort());
    const flagged = first.filter((session) => 'readError' in (session as object)) as { sessionId: string; readError: { code: string } }[];
    expect(Object.fromEntries(flagged.map((session) => [session.sessionId, session.readError.code]))).toEqual({ corrupt: 'SESSION_LOG_CORRUPT', later: 'SESSION_LOG_UNSUPPORTED' });
  });

  it('answers a new engine over the unchanged root as the full listing did, opening neither the kept headers nor the title index', async () => {
    // Garbage in both: a listing that opened either would say so in a notice, and rewrite it.
    writeFileSync(settled.headers, GARBAGE);
    writeFileSync(settled.titles, GARBAGE);
    const again = await listing(settled);
    expect(again.shown).toEqual(first);
    expect(again.notices).toEqual([]);
    expect(readFileSync(settled.headers, 'utf8')).toBe(GARBAGE);
    expect(readFileSync(settled.titles, 'utf8')).toBe(GARBAGE);
  });

  it("names a mention's session as the listing does, through its title index entry (no listing, kept or not), and refuses a damaged log's as the listing flags it", async () => {
    // The title index and kept headers the tests before left as garbage are gone: the first engine makes them, the second answers from them.
    rmSync(settled.titles, { force: true });
    rmSync(settled.headers, { force: true });
    for (const _run of ['building the title index', 'answering from it']) {
      const engine = await open(settled);
      try {
        expect(await engine.titleOf('bravo')).toBe('Title of bravo');
        await expect(engine.titleOf('corrupt')).rejects.toMatchObject({ code: 'SESSION_LOG_CORRUPT' });
        await expect(engine.titleOf('later')).rejects.toMatchObject({ code: 'SESSION_LOG_UNSUPPORTED' });
        expect(engine.takeNotices()).toEqual([]);
      } finally {
        await engine.close();
      }
    }
  });

  it('is not used once any file of any session changed: each change is listed', async () => {
    const titleOf = (shown: unknown[], id: string) => (shown.find((session) => (session as { sessionId: string }).sessionId === id) as { title?: string } | undefined)?.title;
    writeLog(settled.root, 'alpha', 'A new title');
    expect(titleOf((await listing(settled)).shown, 'alpha')).toBe('A new title');
    writeLog(settled.root, 'echo', 'A new session');
    expect(titleOf((await listing(settled)).shown, 'echo')).toBe('A new session');
    rmSync(dirname(logPath(settled.root, 'bravo', CWD)), { recursive: true });
    expect(titleOf((await listing(settled)).shown, 'bravo')).toBeUndefined();
    // A log of a later generation beside a healthy one is that session's current log, which sessref does not read.
    writeLog(settled.root, 'charlie', 'v5', 5);
    const flagged = (await listing(settled)).shown.find((session) => (session as { sessionId: string }).sessionId === 'charlie') as { readError?: { code: string } };
    expect(flagged.readError?.code).toBe('SESSION_LOG_UNSUPPORTED');
  });

  it('that is damaged is said once, naming it, and the root is listed again and kept anew', async () => {
    const where = await place();
    await sleep(SETTLE_MS);
    const full = (await listing(where)).shown;
    writeFileSync(where.listing, GARBAGE);
    const again = await listing(where);
    expect(again.shown).toEqual(full);
    expect(again.notices).toEqual([expect.stringContaining(`kept listing ${where.listing} not used`)]);
    expect(readFileSync(where.listing, 'utf8')).not.toBe(GARBAGE);
  }, 30_000);

  it('that is a FIFO is never opened in a way that waits: a notice, the full listing, and a regular file in its place', async () => {
    const where = await place();
    await sleep(SETTLE_MS);
    execFileSync('mkfifo', [where.listing]);
    const listed = await listing(where);
    expect(listed.notices).toEqual([expect.stringContaining(`kept listing ${where.listing} not used`)]);
    expect(listed.shown).toHaveLength(HEALTHY.length + 2);
    expect(lstatSync(where.listing).isFile()).toBe(true);
  }, 30_000);

  it('is not kept for a root whose files changed within the last two seconds', async () => {
    const fresh = await place();
    await listing(fresh);
    expect(existsSync(fresh.listing)).toBe(false);
  });

  it("answers `sessref list` with another agent's sessions beside the root's, which are listed afresh", async () => {
    const { root, home } = await demoRootAndClaudeHome();
    const cache = await tempDir('sessref-kept-listing-cache-');
    const run = () => sessref(['list', '--root', root, '--json'], { env: { HOME: home, SESSREF_CACHE_DIR: cache } });
    await sleep(SETTLE_MS);
    const full = await run();
    for (const file of readdirSync(cache).filter((name) => name.startsWith('titles-') || name.endsWith('.headers.json'))) writeFileSync(join(cache, file), GARBAGE);
    const kept = await run();
    expect(kept).toEqual(full);
    expect(JSON.parse(kept.stdout)).toContainEqual(expect.objectContaining({ sessionId: CLAUDE_ID, source: 'claude-code' }));
    expect(readdirSync(cache).filter((name) => name.endsWith('.listing.json'))).toHaveLength(1);
    // The root is as it was kept; the other agent's home is not, and is listed as it is now.
    rmSync(join(home, '.claude'), { recursive: true });
    const without = JSON.parse((await run()).stdout) as { sessionId: string }[];
    expect(without.map((session) => session.sessionId)).toEqual((JSON.parse(full.stdout) as { sessionId: string }[]).map((session) => session.sessionId).filter((id) => id !== CLAUDE_ID));
  }, 30_000);
});
