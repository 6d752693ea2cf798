/**
 * Terminal output is safe: whatever a log holds (titles, ids, cwds, message
 * texts), no line the CLI prints carries a raw control character (C0, DEL,
 * C1: OSC 52 writes the clipboard, CSI clears the screen), a line or
 * paragraph separator, or a bidi control (U+061C, U+200E/F, U+202A–U+202E,
 * U+2066–U+2069); a value never breaks a table's row; and JSON output still
 * parses back to the exact values. Sessions are written with the real dsh
 * persistence (Session.append, then flush), then every command runs through
 * the CLI's own `main`, with colour off, and on (a terminal) where the only
 * escape sequences left must be the CLI's own colour codes.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionId } from '@deepseek-ai/dsh-session';
import { formatSessionReferenceMention } from '@sessref/core';
import { main } from '../src/cli';
import { terminalSafe } from '../src/output';
import { appendExchange, setTitle } from '@sessref/test-support';
import { hostOf, openEngineOnHost } from './support';

/** What must never reach a terminal (the line break splits lines, so it is never inside one). */
// eslint-disable-next-line no-control-regex -- the control characters are what is checked
const FORBIDDEN = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
/** The CLI's own colour codes, and the spinner's line reset, on a terminal. */
// eslint-disable-next-line no-control-regex -- ESC is what is matched
const OURS = /\u001b\[(?:1|2|22|31|32|36|39)m|\r\u001b\[2K/g;

/** Pieces that hostile values are made of. */
const HOSTILE_PIECES = [
  '\u001b]52;c;aGVsbG8=\u0007', // OSC 52: write the clipboard
  '\u001b]52;c;aGVsbG8=\u001b\\',
  '\u001b[2J\u001b[H', // clear the screen
  '\u001b[31m',
  '\u001b[8m', // conceal
  '\u009b31m', // 8-bit CSI
  '\u009d0;title\u009c', // 8-bit OSC
  '\r',
  '\n',
  '\r\n',
  '\t',
  '\b',
  '\u0000',
  '\u007f',
  '\u0085',
  '\u2028',
  '\u2029',
  '\u061c',
  '\u200e',
  '\u200f',
  '\u202a',
  '\u202b',
  '\u202c',
  '\u202d',
  '\u202e', // right-to-left override
  '\u2066',
  '\u2067',
  '\u2068',
  '\u2069',
  '\ufdd0', // what colour markers are made of
  '\ufdd00123456789abcdef1\ufdd1', // a marker with a guessed key
  '\ud800', // a lone surrogate
];

const piece = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...HOSTILE_PIECES) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 0x9f }).map((code) => String.fromCharCode(code)) },
  { weight: 2, arbitrary: fc.string({ minLength: 1, maxLength: 4 }) },
  { weight: 1, arbitrary: fc.constantFrom('長い', '🚀', 'é', 'שלום', 'مرحبا', ' ', ']', '\\', '@', '"') },
);
const hostile = (minPieces: number, maxPieces: number) => fc.array(piece, { minLength: minPieces, maxLength: maxPieces }).map((parts) => parts.join(''));

interface Case {
  id: string;
  title: string;
  cwd: string;
  text: string;
  reply: string;
  /** A session id that does not exist, for the error lines. */
  missing: string;
}

const caseArbitrary: fc.Arbitrary<Case> = fc
  .record({
    id: hostile(1, 6),
    title: hostile(1, 8),
    cwd: hostile(1, 5).map((cwd) => `/${cwd}`),
    text: hostile(1, 10),
    reply: hostile(1, 10),
    missing: hostile(1, 5),
  })
  // An id names a directory (at most 255 bytes once escaped), and must not be the target's or be empty of meaning.
  .filter((c) => c.id.length <= 40 && c.id !== 'target' && c.missing !== c.id && c.missing !== 'target');

let cache: string;
const roots: string[] = [];

beforeAll(async () => {
  cache = await mkdtemp(join(tmpdir(), 'sessref-terminal-cache-'));
  process.env.SESSREF_CACHE_DIR = cache;
});

afterAll(async () => {
  await Promise.all([cache, ...roots].map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A root with the hostile session (its title, cwd, one exchange) and a plain target, written by dsh's persistence. */
async function writeRoot(c: Case): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'sessref-terminal-'));
  roots.push(dir);
  const root = join(dir, 'sessions');
  const engine = await openEngineOnHost({ root, indexFile: join(cache, 'unused.json') });
  try {
    const hostileSession = hostOf(engine).sessions.create(SessionId(c.id), { meta: { cwd: c.cwd, createdAt: Date.now() - 60_000 } });
    appendExchange(hostileSession, { user: c.text, assistant: c.reply });
    // As another writer logged it: dsh-session-title would have cleaned the title.
    setTitle(hostileSession, c.title, { verbatim: true });
    await hostOf(engine).sessions.flush(hostileSession);
    const target = hostOf(engine).sessions.create(SessionId('target'), { meta: { cwd: '/work', createdAt: Date.now() - 120_000 } });
    appendExchange(target, { user: 'Start here.', assistant: 'Ready.' });
    await hostOf(engine).sessions.flush(target);
  } finally {
    await engine.close();
  }
  return root;
}

interface Output {
  code: number;
  stdout: string;
  stderr: string;
}

async function run(args: string[], terminal: boolean): Promise<Output> {
  let stdout = '';
  let stderr = '';
  const stream = (append: (text: string) => void) => ({ isTTY: terminal, write: (text: string) => (append(text), true) }) as unknown as NodeJS.WritableStream;
  const io = {
    stdout: stream((text) => (stdout += text)),
    stderr: stream((text) => (stderr += text)),
    env: terminal ? { TERM: 'xterm-256color' } : { NO_COLOR: '1' },
  };
  const code = await main(args, io);
  return { code, stdout, stderr };
}

/** Every line of both streams is safe; on a terminal, once the CLI's own colour codes are set aside. */
function expectSafe(output: Output, label: string): void {
  for (const [stream, text] of [['stdout', output.stdout], ['stderr', output.stderr]] as const) {
    for (const line of text.replace(OURS, '').split('\n')) {
      const found = FORBIDDEN.exec(line);
      expect(found, `${label}: ${stream} line ${JSON.stringify(line)} holds U+${found?.[0].charCodeAt(0).toString(16).padStart(4, '0')}`).toBeNull();
    }
  }
}

describe('every human output line of the CLI', () => {
  it('is safe for generated hostile titles, ids, cwds and texts: list, show, prepare, send, search, mention, uri, hints and errors; JSON parses back exactly', async () => {
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(caseArbitrary, fc.boolean(), async (c, terminal) => {
        runs++;
        const root = await writeRoot(c);
        const mention = formatSessionReferenceMention({ sessionId: c.id, label: c.title });
        const word = /[A-Za-z]{3,}/.exec(c.text)?.[0] ?? 'Start';
        // Options take their values after `=` and positionals follow `--`, so a value starting with `-` stays a value.
        const commands: [flags: string[], positionals: string[], exit: number][] = [
          [[], ['list'], 0],
          [[], ['list', c.title.slice(0, 2)], 0],
          [['--target=target'], ['list'], 0],
          [[`--target=${c.id}`], ['list'], 0],
          [[], ['show', c.id], 0],
          [['--target=target'], ['prepare', `Note: ${c.text} ${mention}`], 0],
          [['--target=target'], ['prepare', `@${c.id} and @${c.title}`], 0],
          [['--target=target'], ['send', `Note: ${c.text} ${mention}`], 0],
          [[], ['search', word], 0],
          [[`--target=${c.id}`], ['search', word], 0],
          [[], ['mention', c.id], 0],
          [[], ['uri', 'encode', c.id], 0],
          [[], ['show', c.missing], 1],
          [[`--target=${c.missing}`], ['prepare', c.text], 1],
          [[], ['list', c.text], 0],
          [[`--cwd=${c.cwd}`, `--title=${c.title}`], ['new'], 0],
          [[`--cwd=x${c.text}`], ['new'], 1],
          [[], [`zz${c.text}`], 1],
        ];
        for (const [flags, positionals, exit] of commands) {
          const output = await run([...flags, '--root', root, '--', ...positionals], terminal);
          expect(output.code, `${positionals[0]}: ${output.stderr}`).toBe(exit);
          expectSafe(output, positionals[0]!);
        }
        // Under --json the values come back exactly, and the output is as safe.
        const listed = await run(['--json', '--root', root, '--', 'list'], terminal);
        expectSafe(listed, 'list --json');
        const session = (JSON.parse(listed.stdout) as { sessionId: string; title?: string; cwd?: string }[]).find((entry) => entry.sessionId === c.id);
        expect(session).toMatchObject({ sessionId: c.id, title: c.title, cwd: c.cwd });
        const shown = await run(['--json', '--root', root, '--', 'show', c.id], terminal);
        expectSafe(shown, 'show --json');
        const view = JSON.parse(shown.stdout) as { conversation: { text: string }[] };
        expect(view.conversation.map((item) => item.text)).toEqual([c.text, c.reply]);
        const failed = await run(['--json', '--root', root, '--', 'show', c.missing], terminal);
        expectSafe(failed, 'show --json (error)');
        expect((JSON.parse(failed.stderr) as { error: { message: string } }).error.message).toContain(c.missing);
      }),
      { numRuns: 12, seed: 0x7e57 },
    );
    expect(runs).toBe(12);
  });
});

describe('terminalSafe', () => {
  it('escapes every forbidden character, keeps everything else, is idempotent, and keeps line breaks only in a block', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(piece, fc.string({ unit: 'binary' })), { maxLength: 20 }).map((parts) => parts.join('')), (text) => {
        const line = terminalSafe(text);
        const block = terminalSafe(text, 'block');
        expect(FORBIDDEN.test(line)).toBe(false);
        expect(line).not.toContain('\n');
        for (const part of block.split('\n')) expect(FORBIDDEN.test(part)).toBe(false);
        expect(block.split('\n')).toHaveLength(text.split('\n').length);
        expect(terminalSafe(line)).toBe(line);
        expect(terminalSafe(block, 'block')).toBe(block);
        // Text without anything to escape is left exactly as it is.
        // eslint-disable-next-line no-control-regex -- the characters terminalSafe escapes
        if (!/[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u206f\ufdd0-\ufdef\ufff9-\ufffb]/.test(text)) expect(line).toBe(text);
      }),
      { numRuns: 2000, seed: 9 },
    );
  });

  it('writes JSON-style escapes, so escaped JSON parses back to the same value', () => {
    expect(terminalSafe('a\u001b[2Jb\n\u202e\t')).toBe('a\\u001b[2Jb\\n\\u202e\\t');
    fc.assert(
      fc.property(fc.array(fc.oneof(piece, fc.string()), { maxLength: 12 }).map((parts) => parts.join('')), (text) => {
        const json = JSON.stringify({ text }, null, 2);
        expect(JSON.parse(terminalSafe(json, 'block'))).toEqual({ text });
      }),
      { numRuns: 1000, seed: 10 },
    );
  });
});
