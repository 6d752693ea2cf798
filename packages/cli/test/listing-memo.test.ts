/**
 * The kept listing's file (listing-memo.ts): any listing a full listing can
 * give is read back by a new memo exactly as it was kept (titles and paths
 * of any text, every refusal code), without listing again; any other
 * document at that path, however it is damaged, is a notice and a full
 * listing, never a throw or a listing of its own. Over a small root left to
 * settle once (a fingerprint trusts files unchanged for two seconds).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionLogError } from '@sessref/dsh/reading';
import type { Listing, SessionSummary } from '../src/engine/listed.js';
import { ListingMemo } from '../src/engine/listing-memo.js';
import { removeTemps, tempDir } from './support.js';

let root: string;
let cache: string;
let files = 0;

beforeAll(async () => {
  const dir = await tempDir('sessref-listing-memo-');
  root = join(dir, 'sessions');
  cache = join(dir, 'cache');
  mkdirSync(join(root, '--app--', 'one'), { recursive: true });
  writeFileSync(join(root, '--app--', 'one', 'session.jsonl.zstd'), 'x');
  mkdirSync(cache, { mode: 0o700 });
  await sleep(2_100);
});

afterAll(removeTemps);

const CODES: SessionLogError['code'][] = ['SESSION_LOG_NOT_A_FILE', 'SESSION_LOG_UNREADABLE', 'SESSION_LOG_TOO_LARGE', 'SESSION_LOG_HEADER_TOO_LARGE', 'SESSION_LOG_CORRUPT', 'SESSION_LOG_TRUNCATED', 'SESSION_LOG_UNSUPPORTED', 'SESSION_LOG_DUPLICATE'];
const text = fc.string({ unit: 'binary', maxLength: 30 });
const time = fc.nat({ max: 4_000_000_000_000 });
const refusal = (sessionId: string) => fc.tuple(fc.constantFrom(...CODES), text).map(([code, message]) => new SessionLogError(sessionId, code, message));

const session: fc.Arbitrary<SessionSummary> = fc
  .record({ sessionId: text, title: fc.option(text, { nil: undefined }), cwd: fc.option(text, { nil: undefined }), createdAt: time, lastSentAt: fc.option(time, { nil: undefined }), failed: fc.boolean() })
  .chain(({ failed, ...fields }) => (failed ? refusal(fields.sessionId).map((readError) => ({ ...fields, readError })) : fc.constant(fields)))
  .map(({ sessionId, title, cwd, createdAt, lastSentAt, ...rest }) => ({
    sessionId,
    source: 'dsh',
    ...(title === undefined ? {} : { title }),
    ...(cwd === undefined ? {} : { cwd }),
    createdAt,
    ...(lastSentAt === undefined ? {} : { lastSentAt }),
    live: false,
    persisted: true,
    ...('readError' in rest ? { readError: rest.readError } : {}),
  }));
const listing: fc.Arbitrary<Listing> = fc.record({ sessions: fc.array(session, { maxLength: 5 }), damaged: fc.array(text.chain(refusal), { maxLength: 3 }) });

/** A listing as compared: each refusal by its session, code and message (all a face shows of it). */
function plain({ sessions, damaged }: Listing): unknown {
  const refusalOf = ({ sessionId, code, message }: SessionLogError) => ({ sessionId, code, message });
  return { sessions: sessions.map(({ readError, ...rest }) => (readError === undefined ? rest : { ...rest, readError: refusalOf(readError as SessionLogError) })), damaged: damaged.map(refusalOf) };
}

const memoAt = (file: string, notices: string[] = []) => new ListingMemo(root, file, true, notices);
const unreachable = (): Promise<Listing> => Promise.reject(new Error('listed again'));

describe('the kept listing file', () => {
  it('reads back every listing as it was kept, without listing again (property)', async () => {
    await fc.assert(
      fc.asyncProperty(listing, async (kept) => {
        const file = join(cache, `kept-${(files += 1)}.json`);
        await memoAt(file).listing(() => Promise.resolve(kept));
        const notices: string[] = [];
        expect(plain(await memoAt(file, notices).listing(unreachable))).toEqual(plain(kept));
        expect(notices).toEqual([]);
      }),
      { numRuns: 60 },
    );
  });

  it('is a notice and a full listing when any value in it is replaced (property)', async () => {
    const file = join(cache, 'kept-damaged.json');
    const full: Listing = { sessions: [{ sessionId: 'one', source: 'dsh', title: 'One', createdAt: 1, live: false, persisted: true, readError: new SessionLogError('one', 'SESSION_LOG_CORRUPT', 'bad') }], damaged: [new SessionLogError('two', 'SESSION_LOG_UNSUPPORTED', 'v5')] };
    await memoAt(file).listing(() => Promise.resolve(full));
    const saved = readFileSync(file, 'utf8');
    // Each JSON value of the saved document but the identity and the fingerprint, by its offset.
    const values = [...saved.matchAll(/"(?:[^"\\]|\\.)*"|-?\d+|null/g)].filter((match) => !/^"(?:version|root|redacted|fingerprint|sessions|damaged)"$/.test(match[0]) && !saved.slice(0, match.index).endsWith('"fingerprint":'));
    const relisted: Listing = { sessions: [], damaged: [] };
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...values), fc.constantFrom('{}', '[]', 'true', '-1', '1.5', '"SESSION_LOG_NOPE"', '[1,2,3]'), async (value, replacement) => {
        fc.pre(value[0] !== replacement);
        writeFileSync(file, `${saved.slice(0, value.index)}${replacement}${saved.slice(value.index + value[0].length)}`);
        const notices: string[] = [];
        const answer = await memoAt(file, notices).listing(() => Promise.resolve(relisted));
        const keptStill = plain(answer);
        // A replacement that is still a valid listing (a title replaced by another string) is read; any other is a notice and the full listing.
        if (notices.length > 0) expect(keptStill).toEqual(plain(relisted));
        else for (const { sessionId, createdAt } of answer.sessions) expect([typeof sessionId, Number.isSafeInteger(createdAt)]).toEqual(['string', true]);
        writeFileSync(file, saved);
      }),
      { numRuns: 80 },
    );
  });
});
