/**
 * Class 4 of #25 for the headers a listing keeps between processes
 * (`<search index>.headers.json`, beside the content index): whatever is at
 * that path (damaged, truncated, of another version or root, a directory, a
 * FIFO, in a directory others can write), a new host lists every session
 * exactly as its logs say, never failing; a kept header edited to claim
 * another creation time or cwd is not trusted for a log whose revision and
 * first bytes it does not name.
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import SessionReferenceResolver from '@sessref/dsh';
import { CheckedJsonlPersistence, bootHost } from '@sessref/host';
import { appendExchange, createHost, createSession, setTitle } from '@sessref/test-support';

const temps: string[] = [];
afterAll(() => temps.forEach((path) => (chmodSync(path, 0o700), rmSync(path, { recursive: true, force: true }))));
function temp(prefix: string): string {
  const path = mkdtempSync(join(tmpdir(), prefix));
  temps.push(path);
  return path;
}

const SESSIONS = [
  { id: 'first', cwd: '/work/a', createdAt: 1_700_000_000_001 },
  { id: 'second', cwd: '/work/b', createdAt: 1_700_000_000_002 },
  { id: 'third', cwd: '/work/a', createdAt: 1_700_000_000_003 },
];
const EXPECTED = [...SESSIONS].reverse().map(({ id, cwd, createdAt }) => ({ id, cwd, createdAt }));

let root: string;
beforeAll(async () => {
  root = join(temp('sessref-headers-'), 'sessions');
  const writer = await createHost({ root, invariants: false });
  try {
    for (const { id, cwd, createdAt } of SESSIONS) {
      const session = createSession(writer, { id, cwd, createdAt });
      appendExchange(session, { user: `question of ${id}`, assistant: `answer of ${id}` });
      setTitle(session, `Title of ${id}`);
      await writer.flush(session);
    }
  } finally {
    await writer.dispose();
  }
});

/**
 * The sessions a fresh host over `root` lists, with the search index (and so
 * the kept headers) in `cache`: as the resolver lists them (through the title
 * index), or as the host's own query lists them (through the kept headers).
 */
async function listed(cache: string, notices: string[] = [], through: 'resolver' | 'host' = 'resolver'): Promise<{ id: string; cwd?: string; createdAt: number }[]> {
  const ctx = await bootHost({ root, indexFile: join(cache, 'titles.json'), searchIndexFile: join(cache, 'content.sqlite') });
  const shown = ({ id, cwd, createdAt }: { id: string; cwd?: string | undefined; createdAt: number }) => ({ id, ...(cwd === undefined ? {} : { cwd }), createdAt });
  try {
    const resolver: unknown = ctx.get('sessionReferenceResolver');
    if (!(resolver instanceof SessionReferenceResolver)) throw new Error('the host did not mount @sessref/dsh');
    const sessions = (await resolver.service.listSessions()).map(shown);
    // The listing the persistence keeps headers for.
    const kept = (await ctx.sessionQuery.listSessions()).map((record) => shown(record.header));
    const persistence = ctx.sessionPersistence;
    if (persistence instanceof CheckedJsonlPersistence) notices.push(...persistence.notices);
    return through === 'resolver' ? sessions : kept;
  } finally {
    await ctx.fiber.dispose();
  }
}

/** A cache directory whose kept headers a first host wrote. */
async function keptHeaders(): Promise<{ cache: string; file: string }> {
  const cache = temp('sessref-headers-cache-');
  expect(await listed(cache)).toEqual(EXPECTED);
  const file = join(cache, 'content.sqlite.headers.json');
  expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ version: 6 });
  return { cache, file };
}

describe('kept headers that cannot be used as found (#25, class 4)', () => {
  it.each([
    ['random bytes', (file: string) => writeFileSync(file, Buffer.from(Array.from({ length: 700 }, (_, at) => (at * 37) % 256)))],
    ['truncated to half', (file: string) => truncateSync(file, Math.floor(readFileSync(file).length / 2))],
    ['emptied', (file: string) => truncateSync(file, 0)],
    ['of another version', (file: string) => writeFileSync(file, readFileSync(file, 'utf8').replace('"version":6', '"version":5'))],
    ['of another root', (file: string) => writeFileSync(file, readFileSync(file, 'utf8').replace(JSON.stringify(root), JSON.stringify('/elsewhere')))],
    ['a directory', (file: string) => (rmSync(file), mkdirSync(file))],
    ['a FIFO', (file: string) => (rmSync(file), execFileSync('mkfifo', [file]))],
  ])('%s: every session listed as its log says, the notice naming the file', async (_what, damage) => {
    const { cache, file } = await keptHeaders();
    damage(file);
    const notices: string[] = [];
    expect(await listed(cache, notices)).toEqual(EXPECTED);
    // Emptied or random bytes: not JSON; a FIFO or a directory: not a regular file; another version or root: not ours. Each is said, naming the file.
    expect(notices.filter((notice) => notice.startsWith(`kept headers ${file} `))).not.toEqual([]);
  });

  it('in a directory others can write: a planted header is not trusted', async () => {
    const { cache, file } = await keptHeaders();
    writeFileSync(file, readFileSync(file, 'utf8').replace('"createdAt":1700000000002', '"createdAt":1'));
    chmodSync(cache, 0o777);
    expect(await listed(cache)).toEqual(EXPECTED);
  });
});

describe('an edited kept header is not trusted for a log it does not describe (#25, class 4)', () => {
  it('another creation time or cwd claimed under another revision and other first bytes (generated)', async () => {
    const { cache, file } = await keptHeaders();
    type Kept = { revision: string; head: { bytes: number; sha256: string }; header: Record<string, unknown> };
    const saved = JSON.parse(readFileSync(file, 'utf8')) as { headers: Record<string, Kept> };
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...SESSIONS.map((session) => session.id)),
        fc.record({ createdAt: fc.integer({ min: 1, max: 1_600_000_000_000 }), cwd: fc.constantFrom('/elsewhere', '/work/z') }),
        fc.oneof(fc.constant('0:0:0:0:0'), fc.nat().map((size) => `1:2:${size}:3:4`)),
        fc.stringMatching(/^[0-9a-f]{64}$/),
        async (id, claim, token, sha256) => {
          const kept = saved.headers[id]!;
          fc.pre(token !== kept.revision && sha256 !== kept.head.sha256);
          const edited = { ...saved, headers: { ...saved.headers, [id]: { revision: token, head: { ...kept.head, sha256 }, header: { ...kept.header, ...claim } } } };
          writeFileSync(file, JSON.stringify(edited));
          expect(await listed(cache)).toEqual(EXPECTED);
        },
      ),
      { numRuns: 6, seed: 25 },
    );
  });
});

describe('a kept header of another shape is read again from its log', () => {
  type Kept = { revision: string; head: { bytes: number; sha256: string }; header: Record<string, unknown> };
  const KNOWN_FIELDS = ['version', 'id', 'createdAt', 'cwd', 'parentSession', 'seedLength', 'origin', 'delegationDepth', 'agentPreset'];

  it('a field dsh does not write, one of the wrong type, or no whole number for its time, among edits it would otherwise trust (generated)', async () => {
    const { cache, file } = await keptHeaders();
    const saved = JSON.parse(readFileSync(file, 'utf8')) as { headers: Record<string, Kept> };
    const write = (id: string, header: Record<string, unknown>) =>
      writeFileSync(file, JSON.stringify({ ...saved, headers: { ...saved.headers, [id]: { ...saved.headers[id]!, header } } }));
    // The revision and first bytes still name the log: a well-formed edit is trusted, which is what lets a bad shape show.
    write('second', { ...saved.headers['second']!.header, cwd: '/elsewhere' });
    expect(await listed(cache, [], 'host')).toContainEqual({ id: 'second', cwd: '/elsewhere', createdAt: 1_700_000_000_002 });
    const reshaped = fc.oneof(
      fc.record({ field: fc.string({ minLength: 1 }).filter((field) => !KNOWN_FIELDS.includes(field)), value: fc.oneof(fc.string(), fc.integer()) }),
      fc.record({ field: fc.constantFrom('cwd', 'parentSession', 'origin', 'agentPreset'), value: fc.integer() }),
      fc.record({ field: fc.constantFrom('seedLength', 'delegationDepth', 'version'), value: fc.string() }),
      fc.record({ field: fc.constant('createdAt'), value: fc.oneof(fc.constant(1.5), fc.constant(Number.MAX_SAFE_INTEGER + 2), fc.string()) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...SESSIONS.map((session) => session.id)), reshaped, async (id, { field, value }) => {
        write(id, { ...saved.headers[id]!.header, cwd: '/elsewhere', [field]: value });
        expect(await listed(cache, [], 'host')).toEqual(EXPECTED);
      }),
      { numRuns: 8, seed: 31 },
    );
  });
});
