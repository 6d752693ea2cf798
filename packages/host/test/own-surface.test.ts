/**
 * A session's surface read without a dsh host (`@sessref/dsh/own-surface`,
 * what a fresh `sessref show` and the inspector answer from) against the
 * read every reference made until now, dsh 0.1.0-rc.8's
 * `ctx.sessionQuery.readSurface` over sessref's strict persistence (a real
 * host: session store, the persistence, dsh's SQLite query engine), over
 * generated conversations written as every log generation, whole or with
 * an interrupted last turn, and damaged: the same header, seq and messages,
 * and the same title as `readTitleSnapshot`, or no answer of its own where
 * the host answers or refuses.
 */
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Context } from '@deepseek-ai/cordis';
import { SessionId } from '@deepseek-ai/dsh-session';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { surfaceThrough } from '@sessref/dsh';
import { logFileName, sessionLogs } from '@sessref/dsh/jsonl-root';
import { CheckedJsonlPersistence, bootLayers, pluginLayer, queryEngine, sessionServices } from '@sessref/host';
import { surfaceAndTitleOfStored, surfaceOfStored, titleOfStored } from '@sessref/dsh/own-surface';
import { RootLogs } from '@sessref/dsh/reading';
import { createHost, createSession, framePerRecord, setTitle, writeGeneration, type Step } from '@sessref/test-support';

const SESSION = { id: 'generated', cwd: '/work', createdAt: 1 };

let temp: string;
let root: string;
let directory: string;
let host: Context;

beforeAll(async () => {
  temp = mkdtempSync(join(tmpdir(), 'sessref-own-surface-'));
  root = join(temp, 'sessions');
  // dsh's own writer places the session's directory; each run then writes its log there.
  const writer = await createHost({ root, invariants: false, writeBatchMaxDelayMs: 1 });
  const session = createSession(writer, SESSION);
  setTitle(session, 'placed');
  await writer.flush(session);
  await writer.dispose();
  directory = dirname(sessionLogs(root)[0]!.path);
  host = await bootLayers([sessionServices, pluginLayer('persistence', CheckedJsonlPersistence, { root }), queryEngine()]);
});
afterAll(async () => {
  await host.fiber.dispose();
  rmSync(temp, { recursive: true, force: true });
});

/** The session's only log: `bytes` as generation `generation` writes its file. */
function placeLog(generation: number, bytes: Buffer): void {
  for (const log of sessionLogs(root)) unlinkSync(log.path);
  writeFileSync(join(directory, logFileName('zstd', generation)), bytes);
}

type Answer = { kind: 'surface'; surface: unknown; title: unknown } | { kind: 'refused'; code: unknown } | { kind: 'left to the host' };

/** As JSON carries it: both reads compared field by field, whatever their prototypes. */
const plain = (value: unknown): unknown => JSON.parse(JSON.stringify(value)) as unknown;

async function ownRead(): Promise<Answer> {
  const stored = await new RootLogs(root).load(SESSION.id).catch(() => undefined);
  const surface = stored && surfaceOfStored(SESSION.id, stored);
  const titled = stored && titleOfStored(SESSION.id, stored);
  // Both reads restore the log the same way: one answers exactly when the other does, and the two from one restore answer alike.
  expect(titled === undefined).toBe(surface === undefined);
  if (stored !== undefined) expect(surfaceAndTitleOfStored(SESSION.id, stored)).toEqual({ surface, title: titled });
  if (surface === undefined || titled === undefined) return { kind: 'left to the host' };
  return { kind: 'surface', surface: plain(surface), title: plain(titled) };
}

async function hostRead(): Promise<Answer> {
  try {
    const [surface, titled] = await Promise.all([surfaceThrough(host.sessionQuery, SESSION.id), host.sessionQuery.readTitleSnapshot(SessionId(SESSION.id))]);
    return { kind: 'surface', surface: plain(surface), title: plain({ header: titled.session, title: titled.title?.title }) };
  } catch (error) {
    return { kind: 'refused', code: (error as { code?: unknown }).code };
  }
}

const text = fc.string({ minLength: 1, maxLength: 10 }).filter((value) => value.trim().length > 0);
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('exchange' as const), user: text, assistant: text, tool: fc.option(text, { nil: undefined }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('compact' as const), span: fc.integer({ min: 1, max: 6 }), summary: text }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('title' as const), title: text }) },
);

/** How a generated log is changed before it is written: not at all, its last line dropped (a turn left open), or a line replaced. */
type Change = { kind: 'none' } | { kind: 'drop last' } | { kind: 'garbage'; line: number; text: string };
const change: fc.Arbitrary<Change> = fc.oneof(
  { weight: 4, arbitrary: fc.constant({ kind: 'none' as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'drop last' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('garbage' as const), line: fc.nat({ max: 64 }), text: fc.json() }) },
);

function changed(log: string, how: Change): string {
  const lines = log.split(/(?<=\n)/);
  // The header stays: a log without one is no session, for both reads.
  if (how.kind === 'drop last' && lines.length > 1) lines.pop();
  if (how.kind === 'garbage' && lines.length > 1) lines.splice(1 + (how.line % (lines.length - 1)), 1, `${how.text}\n`);
  return lines.join('');
}

describe('a surface read without a dsh host', () => {
  it('is what the host reads, surface and title, for every generation, or left to the host', async () => {
    const outcomes = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 10 }), fc.constantFrom(0, 1, 2, 3, 4), change, async (steps, generation, how) => {
        placeLog(generation, framePerRecord(changed(writeGeneration(generation, steps, SESSION), how)));
        const [ours, theirs] = [await ownRead(), await hostRead()];
        const outcome = `${ours.kind}/${theirs.kind}`;
        outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
        // A log as a current dsh writes it is always answered here, without the host.
        if (how.kind === 'none') expect(ours.kind).toBe('surface');
        if (ours.kind === 'surface') expect(ours).toEqual(theirs);
      }),
      { numRuns: 300 },
    );
    // The generator reaches answers of both kinds, and refusals the host gives on its own.
    expect([...outcomes.keys()]).toEqual(expect.arrayContaining(['surface/surface', 'left to the host/refused']));
  });

  it('leaves a log with pre-release message shapes to the host, which upgrades them', async () => {
    // Before messages had ids, a user message was its content and source alone; rc.8 mints each a legacy id.
    const legacy = writeGeneration(0, [{ kind: 'exchange', user: 'before ids', assistant: 'ok', tool: undefined }], SESSION)
      .split(/(?<=\n)/)
      .map((line, index) => {
        if (index === 0) return line;
        const event = JSON.parse(line) as { type: string; data: Record<string, unknown> };
        if (event.type !== 'user/message') return line;
        const { id: _id, role: _role, ...data } = event.data;
        return `${JSON.stringify({ ...event, data })}\n`;
      })
      .join('');
    placeLog(0, framePerRecord(legacy));
    expect(await ownRead()).toEqual({ kind: 'left to the host' });
    expect(await hostRead()).toMatchObject({ kind: 'surface' });
  });
});
