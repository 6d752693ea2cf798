/**
 * Reliability of the core under hostile input, faulty storage and load.
 * docs/reliability.md states each figure and the command behind it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSessionReferenceCore } from '../src/facade.js';
import { decodeSessionReferenceUri, formatSessionReferenceMention, parseSessionReferenceText } from '../src/uri.js';
import { extractReferencedSessionsJson, REFERENCED_SESSIONS_CLOSE_TAG, REFERENCED_SESSIONS_OPEN_TAG } from '../src/prompt.js';
import type { SessionReferenceStorage, SurfaceSnapshot } from '../src/types.js';
import { anyString } from './arbitraries.js';
import { expectRejection, isErrorWithCode } from './errors.js';
import { MemoryStorage, never } from './memory-storage.js';
import { assistantMessage, userMessage } from './surface.js';

const INVALID = 'SESSION_REFERENCE_INVALID_REFERENCE';
const target = { id: 'target', cwd: '/work' };

/** Text mixing mention syntax with anything at all, so every branch of the scanner is reached. */
const hostileText = fc
  .array(
    fc.oneof(
      fc.constantFrom('@[', ']', '](', '(', ')', '\\', 'dsh-session:', 'ImEi', 'ImIi', '=', ' ', '\n', '\u2028', '<', '</referenced-sessions>'),
      anyString({ maxLength: 6 }),
      fc.record({ sessionId: anyString({ maxLength: 4 }), label: anyString({ maxLength: 4 }) }).map(formatSessionReferenceMention),
    ),
    { maxLength: 24 },
  )
  .map((parts) => parts.join(''));

/** Only the stable INVALID_REFERENCE code may ever escape, whatever the input. */
function onlyInvalidReference(action: () => unknown): void {
  try {
    action();
  } catch (error) {
    expect(isErrorWithCode(error, INVALID), String(error)).toBe(true);
  }
}

describe('hostile input: 100,000 fuzz runs in batches', () => {
  const BATCHES = 10;
  const RUNS = 10_000;
  for (let batch = 0; batch < BATCHES; batch++) {
    it(`parse and decode throw nothing but ${INVALID} (batch ${batch + 1}/${BATCHES}, ${RUNS} runs)`, () => {
      fc.assert(
        fc.property(fc.oneof(hostileText, anyString({ maxLength: 64 })), (input) => {
          onlyInvalidReference(() => parseSessionReferenceText(input));
          onlyInvalidReference(() => decodeSessionReferenceUri(input));
          onlyInvalidReference(() => decodeSessionReferenceUri(`dsh-session:${input}`));
        }),
        { numRuns: RUNS, seed: 0x5e55 + batch },
      );
    });
  }
});

/** A source whose only message is `text`, and the prompt a reference to it yields. */
async function promptFor(text: string): Promise<string> {
  const storage = new MemoryStorage([{ id: 'source', messages: [userMessage(text), assistantMessage('ok')] }]);
  const prepared = await createSessionReferenceCore(storage).prepare(target, [], [{ sessionId: 'source' }]);
  return prepared.context!.text;
}

describe('tag safety', () => {
  it('for any source text: exactly one opening and one closing tag line, and the payload parses back to the text', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(hostileText, anyString()).filter((text) => text.length > 0), async (text) => {
        const prompt = await promptFor(text);
        const lines = prompt.split('\n');
        expect(lines.filter((line) => line === REFERENCED_SESSIONS_OPEN_TAG)).toHaveLength(1);
        expect(lines.filter((line) => line === REFERENCED_SESSIONS_CLOSE_TAG)).toHaveLength(1);
        expect(prompt.split(REFERENCED_SESSIONS_OPEN_TAG)).toHaveLength(2);
        expect(prompt.split(REFERENCED_SESSIONS_CLOSE_TAG)).toHaveLength(2);
        const [data] = JSON.parse(extractReferencedSessionsJson(prompt)!) as [{ conversation: { text: string }[] }];
        expect(data.conversation[0]!.text).toBe(text);
      }),
      { numRuns: 500 },
    );
  });
});

const explode = (): never => {
  throw new Error('trap');
};

/** Values foreign storage code may reject with that break naive error handling when inspected. */
const PATHOLOGICAL_REJECTIONS: [string, () => unknown][] = [
  ['an object whose toString and toJSON throw', () => ({ toString: explode, toJSON: explode })],
  ['an object whose Symbol.toPrimitive throws', () => ({ [Symbol.toPrimitive]: explode, toJSON: explode })],
  ['a proxy that throws on every access', () => new Proxy({}, { get: explode, getPrototypeOf: explode, has: explode, ownKeys: explode, getOwnPropertyDescriptor: explode })],
  ['a proxied function that throws on every access', () => new Proxy(() => {}, { get: explode, getPrototypeOf: explode, apply: explode })],
  ['an Error whose message getter throws', () => Object.defineProperty(new Error('x'), 'message', { get: explode })],
  ['an object with a null prototype', () => Object.create(null) as object],
  ['a symbol', () => Symbol('reason')],
  ['a bigint', () => 10n],
  ['a cyclic object', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    return cyclic;
  }],
];

/** Storage over `MemoryStorage` whose surface reads misbehave in one chosen way. */
function faulty(readSurface: SessionReferenceStorage['readSurface']): SessionReferenceStorage {
  const healthy = new MemoryStorage([{ id: 'source', messages: [userMessage('hello')] }]);
  return { listSessions: (signal) => healthy.listSessions(signal), readTitles: (ids, signal) => healthy.readTitles(ids, signal), readSurface };
}

describe('storage faults', () => {
  const references = [{ sessionId: 'source' }];
  it.each([
    ['throws synchronously', () => faulty(() => { throw new Error('disk on fire'); })],
    ['rejects with an Error', () => faulty(async () => { throw new Error('EIO'); })],
    ['rejects with a string', () => faulty(() => Promise.reject('boom'))],
    ['rejects with undefined', () => faulty(() => Promise.reject(undefined))],
    ['rejects with an object', () => faulty(() => Promise.reject({ code: 42 }))],
  ])('a read that %s is SESSION_REFERENCE_READ_FAILED with the cause kept, and no context', async (_name, storage) => {
    const error = await expectRejection(createSessionReferenceCore(storage()).prepare(target, [], references), 'SESSION_REFERENCE_READ_FAILED');
    expect('cause' in error).toBe(true);
  });

  it.each(PATHOLOGICAL_REJECTIONS)('a read rejecting with %s is SESSION_REFERENCE_READ_FAILED with that very value as cause', async (_name, make) => {
    const value = make();
    const storage = faulty(() => Promise.reject(value));
    const error = await expectRejection(createSessionReferenceCore(storage).prepare(target, [], references), 'SESSION_REFERENCE_READ_FAILED');
    expect(error.cause).toBe(value);
    expect(error.message).toContain('could not read session "source"');
  });

  it.each(PATHOLOGICAL_REJECTIONS)('a session listing rejecting with %s is SESSION_REFERENCE_READ_FAILED too', async (_name, make) => {
    const value = make();
    const storage: SessionReferenceStorage = { ...faulty(never), listSessions: () => Promise.reject(value) };
    const error = await expectRejection(createSessionReferenceCore(storage).listCandidates(target, 'x'), 'SESSION_REFERENCE_READ_FAILED');
    expect(error.cause).toBe(value);
  });

  it('any thrown value, hostile or not, becomes READ_FAILED with its cause (generated)', async () => {
    // Makers, not values: fast-check itself inspects generated values, and a hostile one would trap it.
    const makers = fc.oneof(
      fc.anything().map((value) => () => value),
      fc.constantFrom(...PATHOLOGICAL_REJECTIONS.map(([, make]) => make)),
    );
    await fc.assert(
      fc.asyncProperty(makers, fc.boolean(), async (make, synchronous) => {
        const value = make();
        const storage = faulty(() => {
          if (synchronous) throw value;
          return Promise.reject(value);
        });
        const error = await expectRejection(createSessionReferenceCore(storage).prepare(target, [], references), 'SESSION_REFERENCE_READ_FAILED');
        expect(error.cause).toBe(value);
      }),
      { numRuns: 300 },
    );
  });

  it('a read that hangs forever is SESSION_REFERENCE_CANCELLED once the turn is aborted', async () => {
    const controller = new AbortController();
    const pending = createSessionReferenceCore(faulty(() => never())).prepare(target, [], references, controller.signal);
    controller.abort(new Error('user pressed stop'));
    await expectRejection(pending, 'SESSION_REFERENCE_CANCELLED');
  });

  it('a read that resolves after the abort is still SESSION_REFERENCE_CANCELLED: no late context', async () => {
    const controller = new AbortController();
    let release: (snapshot: SurfaceSnapshot) => void = () => {};
    const late = new Promise<SurfaceSnapshot>((resolve) => (release = resolve));
    const pending = createSessionReferenceCore(faulty(() => late)).prepare(target, [], references, controller.signal);
    controller.abort();
    release({ session: { id: 'source', createdAt: 0 }, capturedThroughSeq: 1, messages: [userMessage('late')] });
    await expectRejection(pending, 'SESSION_REFERENCE_CANCELLED');
  });

  it('title reads that fail for some ids only make those labels fall back to the id', async () => {
    const storage = new MemoryStorage([
      { id: 'a', title: 'Alpha' },
      { id: 'b', title: new Error('unreadable log') },
      { id: 'c', title: 'Gamma' },
    ]);
    const candidates = await createSessionReferenceCore(storage).listCandidates(target, '');
    expect(candidates.map((candidate) => candidate.label)).toEqual(['Alpha', 'b', 'Gamma']);
  });
});

describe('load', () => {
  it('1,000 concurrent prepare calls over 100 sources equal the same calls made one at a time', async () => {
    const sources = Array.from({ length: 100 }, (_, index) => ({
      id: `source-${index}`,
      cwd: `/work/${index % 5}`,
      messages: Array.from({ length: 20 }, (_, turn) =>
        turn % 2 === 0 ? userMessage(`question ${turn} for ${index} <b>`.repeat(10)) : assistantMessage(`answer ${turn} ✓ `.repeat(20)),
      ),
    }));
    const resolver = createSessionReferenceCore(new MemoryStorage(sources), { maxReferenceBytes: 4096 });
    const calls = Array.from({ length: 1000 }, (_, index) => {
      const ids = [index % 100, (index * 7) % 100, (index * 13) % 100].map((n) => ({ sessionId: `source-${n}` }));
      return () => resolver.prepare(target, [{ type: 'text', text: `call ${index}` }], ids);
    });
    const before = process.memoryUsage().heapUsed;
    const concurrent = await Promise.all(calls.map((call) => call()));
    const peak = process.memoryUsage().heapUsed;
    const sequential = [];
    for (const call of calls) sequential.push(await call());
    expect(concurrent.map(({ context }) => [context?.text, context?.source])).toEqual(sequential.map(({ context }) => [context?.text, context?.source]));
    expect(concurrent.every((result) => result.context !== undefined)).toBe(true);
    console.info(`load: 1,000 concurrent prepare calls, heap grew by ${((peak - before) / 1024 / 1024).toFixed(1)} MiB`);
  });
});
