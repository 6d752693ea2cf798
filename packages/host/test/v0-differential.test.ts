/**
 * sessref's storage reading a generation-0 log (`CheckedJsonlPersistence`,
 * through its own reader) against the reader every v0 log went through
 * until now, dsh 0.1.0-rc.8's JSONL backend (`loadStored`), over
 * generated logs, whole or damaged (cut at any byte, one byte changed, a line
 * dropped, doubled or replaced by garbage), in dsh's zstd frames (sessref
 * reads zstd roots only, as dsh writes them by default):
 * both read the same header and events, both find a torn tail (which dsh
 * cuts off on resume and sessref refuses as `SESSION_LOG_TRUNCATED`), or
 * both refuse the log.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Context } from '@deepseek-ai/cordis';
import { SessionId } from '@deepseek-ai/dsh-session';
import type { JsonlSessionPersistence } from '@deepseek-ai/dsh-session-persistence-jsonl';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionLogs } from '@sessref/dsh/jsonl-root';
import { SessionLogError } from '@sessref/dsh/reading';
import { CheckedJsonlPersistence, bootLayers, dshPersistence, pluginLayer, sessionServices } from '@sessref/host';
import { createHost, createSession, framePerRecord, setTitle, writeGeneration, type Step } from '@sessref/test-support';

/** The generated logs' session, as `writeGeneration` writes its header. */
const SESSION = { id: 'generated', cwd: '/work', createdAt: 1 };

type Outcome = { kind: 'read'; header: unknown; events: unknown } | { kind: 'torn' } | { kind: 'refused' } | { kind: 'missing' };

/** A root with the generated session's log in place, and both backends over it. */
interface Root {
  log: string;
  dsh: Context;
  sessref: Context;
}

let root: Root;
let temp: string;

async function rootOf(): Promise<Root> {
  temp = mkdtempSync(join(tmpdir(), 'sessref-v0-'));
  const root = join(temp, 'sessions');
  // dsh's own writer places the log (project and session directories); each run then writes its bytes.
  const writer = await createHost({ root, invariants: false, writeBatchMaxDelayMs: 1 });
  const session = createSession(writer, SESSION);
  // A title makes a session durable at once.
  setTitle(session, 'placed');
  await writer.flush(session);
  await writer.dispose();
  const [log] = sessionLogs(root);
  const [dsh, sessref] = await Promise.all([
    bootLayers([sessionServices, dshPersistence({ root })]),
    bootLayers([sessionServices, pluginLayer('persistence', CheckedJsonlPersistence, { root })]),
  ]);
  return { log: log!.path, dsh, sessref };
}

beforeAll(async () => {
  root = await rootOf();
});
afterAll(async () => {
  await Promise.all([root.dsh.fiber.dispose(), root.sessref.fiber.dispose()]);
  rmSync(temp, { recursive: true, force: true });
});

/** As JSON carries them: both readers' values compared field by field, whatever their prototypes. */
function plain(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value)) as unknown;
}

/** What a backend's `loadStored` makes of the log: a torn tail is what dsh cuts off on resume, and what sessref refuses as `SESSION_LOG_TRUNCATED`. */
async function read(host: Context): Promise<Outcome> {
  try {
    const stored = await (host.sessionPersistence as JsonlSessionPersistence).loadStored(SessionId(SESSION.id));
    if (stored === undefined) return { kind: 'missing' };
    if (stored.tornMarker !== undefined) return { kind: 'torn' };
    return { kind: 'read', header: plain(stored.meta), events: plain(stored.events) };
  } catch (error) {
    return error instanceof SessionLogError && error.code === 'SESSION_LOG_TRUNCATED' ? { kind: 'torn' } : { kind: 'refused' };
  }
}

type Damage =
  | { kind: 'none' }
  | { kind: 'cut'; at: number }
  | { kind: 'byte'; at: number; value: number }
  | { kind: 'drop' | 'double'; line: number }
  | { kind: 'garbage'; line: number; text: string };

/** Damage made to a log's lines (before framing: what a writer could have written) or to its bytes (after: what the disk holds). */
function damaged(text: string, damage: Damage): Buffer {
  const lines = text.split(/(?<=\n)/);
  const at = (line: number) => line % lines.length;
  if (damage.kind === 'drop') lines.splice(at(damage.line), 1);
  if (damage.kind === 'double') lines.splice(at(damage.line), 0, lines[at(damage.line)]!);
  if (damage.kind === 'garbage') lines.splice(at(damage.line), 1, `${damage.text}\n`);
  const bytes = framePerRecord(lines.join(''));
  if (damage.kind === 'cut') return bytes.subarray(0, damage.at % (bytes.length + 1));
  if (damage.kind === 'byte') bytes[damage.at % bytes.length] = damage.value;
  return bytes;
}

const text = fc.string({ minLength: 1, maxLength: 10 }).filter((value) => value.trim().length > 0);
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('exchange' as const), user: text, assistant: text, tool: fc.option(text, { nil: undefined }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('compact' as const), span: fc.integer({ min: 1, max: 6 }), summary: text }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('title' as const), title: text }) },
);
const index = fc.nat({ max: 1 << 20 });
const damage: fc.Arbitrary<Damage> = fc.oneof(
  { weight: 3, arbitrary: fc.constant({ kind: 'none' as const }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('cut' as const), at: index }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('byte' as const), at: index, value: fc.nat({ max: 255 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constantFrom('drop' as const, 'double' as const), line: index }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('garbage' as const), line: index, text: fc.oneof(fc.string(), fc.json()) }) },
);

describe('a v0 log read by sessref and by dsh 0.1.0-rc.8', () => {
  it('is read the same by both, torn for both, or refused by both', async () => {
    const kinds = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 10 }), damage, async (steps, harm) => {
        writeFileSync(root.log, damaged(writeGeneration(0, steps, SESSION), harm));
        const [ours, theirs] = await Promise.all([read(root.sessref), read(root.dsh)]);
        const pair = `${ours.kind}/${theirs.kind}`;
        kinds.set(pair, (kinds.get(pair) ?? 0) + 1);
        if (harm.kind === 'none') expect(ours).toMatchObject({ kind: 'read' });
        expect(ours).toEqual(theirs);
      }),
      { numRuns: 400 },
    );
    // The generator reaches every kind of agreement, not only whole logs.
    expect([...kinds.keys()]).toEqual(expect.arrayContaining(['read/read', 'torn/torn', 'refused/refused']));
  });
});

describe('a v0 log whose header places it elsewhere', () => {
  it.each([
    ['another cwd', { ...SESSION, cwd: '/elsewhere' }],
    ['no cwd', { id: SESSION.id, createdAt: SESSION.createdAt }],
  ])('(%s) is refused by both, as a log dsh never writes there', async (_, session) => {
    writeFileSync(root.log, framePerRecord(writeGeneration(0, [{ kind: 'title', title: 'moved' }], session)));
    expect(await read(root.sessref)).toEqual({ kind: 'refused' });
    expect(await read(root.dsh)).toEqual({ kind: 'refused' });
  });
});
