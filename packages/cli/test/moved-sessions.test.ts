/**
 * A dsh 0.2.1+ session that changed its working directory is listed, and
 * ranked as a candidate, in the directory it is in now, by every `sessref`
 * process, including one that finds the headers an earlier process kept
 * before the move; and `list` gives a v4 session's age since its user last
 * sent, as dsh 0.2 dates it, saying so, where a v0 session keeps its age
 * since creation.
 *
 * SYNTHETIC: no real log with a `working-directory/change` exists in
 * ../shared/dsh-log-samples; the v4 logs here are written by the test-side
 * generation writer, the change in the shape upstream's
 * `packages/session/working-directory` declares.
 */
import { appendFile, mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { framePerRecord, writeGeneration } from '@sessref/test-support';
import { createHost, createSession, appendExchange } from '@sessref/test-support';
import { json, logPath, ok, removeTemps, requireBuild, tempDir } from './support';

const STARTED_IN = '/work/old-checkout';
const MOVED_TO = '/work/app';

beforeAll(requireBuild);
afterAll(removeTemps);

/** Session `id`, a v4 log in `cwd` holding one exchange and a title, created at `createdAt`; the log's path and the seq its next event takes. */
async function writeV4(root: string, id: string, cwd: string, createdAt: number): Promise<{ log: string; nextSeq: number }> {
  const text = writeGeneration(4, [{ kind: 'exchange', user: `Question in ${id}?`, assistant: 'Answer.' }, { kind: 'title', title: `Title of ${id}` }], { id, createdAt, cwd });
  const log = join(dirname(logPath(root, id, cwd)), 'session.v4.jsonl.zstd');
  await mkdir(dirname(log), { recursive: true });
  await writeFile(log, framePerRecord(text));
  return { log, nextSeq: text.trimEnd().split('\n').length - 1 };
}

/** Append one `working-directory/change` to `cwd` at `seq`, a frame as dsh writes it. */
async function move(log: string, seq: number, cwd: string): Promise<void> {
  await appendFile(log, framePerRecord(`${JSON.stringify({ type: 'working-directory/change', data: { cwd }, seq, time: 1_786_707_400_000 + seq })}\n`));
}

describe('a session that moved to another working directory', () => {
  it('is listed in its new directory and ranked with the sessions there, after the headers were kept where it started', async () => {
    const root = join(await tempDir('sessref-moved-'), 'sessions');
    await writeV4(root, 'target', MOVED_TO, 1_786_707_300_000);
    await writeV4(root, 'stayed', STARTED_IN, 1_786_707_310_000);
    const mover = await writeV4(root, 'mover', STARTED_IN, 1_786_707_320_000);

    const cwdOf = async (): Promise<Record<string, string | undefined>> =>
      Object.fromEntries((await json<{ sessionId: string; cwd?: string }[]>(['list', '--root', root])).map((row) => [row.sessionId, row.cwd]));
    const ranked = async (): Promise<[string, string | undefined][]> =>
      (await json<{ sessionId: string; cwd?: string }[]>(['list', '--target', 'target', '--root', root])).map((candidate) => [candidate.sessionId, candidate.cwd]);

    // Listed before the move: the headers are kept (and the title index built) where it started.
    expect(await cwdOf()).toEqual({ target: MOVED_TO, stayed: STARTED_IN, mover: STARTED_IN });
    expect(await ranked()).toEqual([
      ['mover', STARTED_IN],
      ['stayed', STARTED_IN],
    ]);

    await move(mover.log, mover.nextSeq, '/work/elsewhere');
    await move(mover.log, mover.nextSeq + 1, MOVED_TO);

    expect(await cwdOf()).toEqual({ target: MOVED_TO, stayed: STARTED_IN, mover: MOVED_TO });
    // Same workspace first: the session that moved into the target's directory now leads, newer or not.
    expect(await ranked()).toEqual([
      ['mover', MOVED_TO],
      ['stayed', STARTED_IN],
    ]);
    const moved = await writeV4(root, 'later', STARTED_IN, 1_786_707_330_000);
    await move(moved.log, moved.nextSeq, MOVED_TO);
    expect(await ranked()).toEqual([
      ['later', MOVED_TO],
      ['mover', MOVED_TO],
      ['stayed', STARTED_IN],
    ]);
  });

  it('a target that moved ranks the sessions of the directory it moved to first', async () => {
    const root = join(await tempDir('sessref-moved-'), 'sessions');
    const target = await writeV4(root, 'target', STARTED_IN, 1_786_707_300_000);
    await writeV4(root, 'there', MOVED_TO, 1_786_707_310_000);
    await writeV4(root, 'here', STARTED_IN, 1_786_707_320_000);
    const ranked = async (): Promise<string[]> => (await json<{ sessionId: string }[]>(['list', '--target', 'target', '--root', root])).map((candidate) => candidate.sessionId);
    expect(await ranked()).toEqual(['here', 'there']);
    await move(target.log, target.nextSeq, MOVED_TO);
    expect(await ranked()).toEqual(['there', 'here']);
  });
});

describe("a v4 session's age", () => {
  it('is the time since its user last sent, said so, in the table and as lastSentAt in JSON; a v0 session keeps its age since creation', async () => {
    const root = join(await tempDir('sessref-sent-'), 'sessions');
    const writer = await createHost({ root, invariants: false });
    try {
      const older = createSession(writer, { id: 'older', cwd: MOVED_TO, createdAt: Date.now() - 3 * 24 * 3_600_000 });
      appendExchange(older, { user: 'An rc.8 question.', assistant: 'An rc.8 answer.' });
      await writer.flush(older);
    } finally {
      await writer.dispose();
    }
    // The last send, after the generation writer's own question (which it dates by its seq), days before now.
    const sentAt = 1_786_707_400_000;
    const { log, nextSeq } = await writeV4(root, 'current', MOVED_TO, sentAt - 60_000);
    await appendFile(
      log,
      framePerRecord(`${JSON.stringify({ type: 'user/message', surfaceOp: 'append', data: { id: 'later', role: 'user', content: [{ type: 'text', text: 'One more thing.' }], source: { kind: 'user' } }, seq: nextSeq, time: sentAt })}\n`),
    );

    const rows = await json<{ sessionId: string; createdAt: number; lastSentAt?: number }[]>(['list', '--root', root]);
    expect(rows.find((row) => row.sessionId === 'current')?.lastSentAt).toBe(sentAt);
    expect(rows.find((row) => row.sessionId === 'older')).not.toHaveProperty('lastSentAt');

    const table = await ok(['list', '--root', root]);
    expect(table).toMatch(/^current .* last sent \d+d ago *$/m);
    expect(table).toMatch(/^older .* 3d ago *$/m);
    expect(table).not.toMatch(/^older .*last sent/m);
  });
});
