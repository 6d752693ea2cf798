/**
 * What a new user reaches for first (#26, item 8): `--version`, a message on
 * stdin, a negative `--limit` refused in the CLI's own words, and a
 * suggestion for a mistyped command. Parsing runs in process; stdin runs
 * through the built binary, as a shell pipes it.
 */
import { readFileSync } from 'node:fs';
import { Readable, Writable } from 'node:stream';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../src/cli.js';
import { MAX_STDIN_BYTES } from '../src/commands/message.js';
import { OPTIONS } from '../src/commands/options.js';
import { COMMANDS } from '../src/commands/table.js';
import { copyRoot, emptyRoot, expectFailure, hashTree, json, ok, removeTemps, requireBuild, sessref } from './support';

const VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** Run in process, stdin holding `input` when given. */
async function run(argv: string[], input?: string | Buffer): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const sink = (append: (text: string) => void) =>
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        append(chunk.toString());
        done();
      },
    });
  const io = {
    stdout: sink((text) => (stdout += text)),
    stderr: sink((text) => (stderr += text)),
    env: { NO_COLOR: '1' },
    ...(input === undefined ? {} : { stdin: Readable.from([Buffer.from(input)]) }),
  };
  const code = await main(argv, io);
  // Writes to a Writable land on the next tick.
  await new Promise((resolve) => setImmediate(resolve));
  return { code, stdout, stderr };
}

let root: string;

beforeAll(async () => {
  requireBuild();
  root = await emptyRoot('sessref-papercuts-');
  await ok(['seed', '--root', root]);
});

afterAll(removeTemps);

describe('--version', () => {
  it.each([['--version'], ['-V'], ['list', '--version'], ['send', '-V']])('%s prints the package version and nothing else', async (...argv) => {
    expect(await run(argv)).toEqual({ code: 0, stdout: `sessref ${VERSION}\n`, stderr: '' });
  });

  it('is a JSON object under --json', async () => {
    const { code, stdout } = await run(['--version', '--json']);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual({ version: VERSION });
  });

  it('is listed in sessref --help', async () => {
    expect((await run(['--help'])).stdout).toMatch(/-V, --version +print sessref's version/);
  });
});

describe('a numeric flag given a value that starts with a dash', () => {
  const numeric = COMMANDS.flatMap((command) =>
    Object.keys(command.options).flatMap((name) => {
      const value = OPTIONS[name as keyof typeof OPTIONS].value;
      return typeof value === 'object' ? [{ command: command.name, name, range: value }] : [];
    }),
  );

  it.each(['-1', '0', '1.5', 'abc'])('list --limit %s gets "must be a positive integer"', async (raw) => {
    expect(await run(['list', '--limit', raw])).toEqual({
      code: 1,
      stdout: '',
      stderr: `error USAGE: --limit must be a positive integer, got "${raw}" (fix: run \`sessref --help\` for usage)\n`,
    });
  });

  it('every numeric flag of every command refuses a negative or dashed value in its own words, as a separate argument', async () => {
    const dashed = fc.oneof(fc.integer({ max: -1 }).map(String), fc.string({ minLength: 1 }).map((rest) => `-${rest}`)).filter(
      // `--x` is a flag, `-h` and `-V` are ours: those stay what they are.
      (raw) => !raw.startsWith('--') && raw !== '-h' && raw !== '-V',
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...numeric), dashed, async ({ command, name, range }, raw) => {
        const result = await run([command, `--${name}`, raw, '--root', '/nonexistent/sessref-root']);
        expect(result.code).toBe(1);
        expect(result.stderr).toBe(`error USAGE: --${name} must be ${range.words}, got "${raw}" (fix: run \`sessref --help\` for usage)\n`);
      }),
      { numRuns: 60 },
    );
  });

  it('nothing after -- is read as a flag value', async () => {
    // `-` and `-1` after `--` are operands: list takes one, so the second is refused as an extra word.
    expect((await run(['list', '--root', '/nonexistent/sessref-root', '--', '--limit', '-1'])).stderr).toMatch(/^error USAGE: list takes QUERY, got 2/);
  });
});

describe('an unknown command', () => {
  it.each([
    ['lsit', 'list'],
    ['shwo', 'show'],
    ['serach', 'search'],
    ['prepar', 'prepare'],
    ['LIST', 'list'],
    ['mentions', 'mention'],
  ])('%s suggests %s', async (typed, meant) => {
    const result = await run([typed]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`error USAGE: unknown command "${typed}"; did you mean "${meant}"? (fix: run \`sessref --help\` for usage)\n`);
  });

  it('names every command as close as the closest', async () => {
    // "sed" is one edit from both seed and send.
    expect((await run(['sed'])).stderr).toContain('did you mean "send" or "seed"?');
  });

  it.each(['frobnicate', 'x', 'zz', 'a'.repeat(5000)])('%s suggests nothing', async (typed) => {
    expect((await run([typed])).stderr).toBe(`error USAGE: unknown command "${typed}" (fix: run \`sessref --help\` for usage)\n`);
  });

  it('one typo in any command name suggests that command', async () => {
    const names = COMMANDS.map((command) => command.name);
    const typo = fc
      .record({ name: fc.constantFrom(...names), at: fc.nat(), letter: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz'), kind: fc.constantFrom('replace', 'insert', 'delete') })
      .map(({ name, at, letter, kind }) => {
        const index = at % name.length;
        const typed =
          kind === 'replace' ? name.slice(0, index) + letter + name.slice(index + 1) : kind === 'insert' ? name.slice(0, index) + letter + name.slice(index) : name.slice(0, index) + name.slice(index + 1);
        return { name, typed };
      })
      .filter(({ typed }) => !names.includes(typed) && typed.length >= 2);
    await fc.assert(
      fc.asyncProperty(typo, async ({ name, typed }) => {
        expect((await run([typed])).stderr).toMatch(new RegExp(`did you mean (?:"[a-z]+" or )*"${name}"`));
      }),
      { numRuns: 80 },
    );
  });
});

describe('an unknown session id', () => {
  it.each([
    ['show', 'oauth-migratoin', 'oauth-migration'],
    ['show', 'OAUTH-MIGRATION', 'oauth-migration'],
    ['list --target', 'scrachpad', 'scratchpad'],
  ])('%s %s suggests the listed id %s, still exit 1 not found', async (command, typed, meant) => {
    const result = await run([...command.split(' '), typed, '--root', root]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`error SESSION_QUERY_SESSION_NOT_FOUND: session "${typed}" not found; did you mean "${meant}"? (fix: list sessions with \`sessref list\`)`);
  });

  it('suggests nothing for an id far from every listed one', async () => {
    const result = await run(['show', 'nope', '--root', root]);
    expect(result.code).toBe(1);
    expect(result.stderr).not.toContain('did you mean');
  });
});

describe('MESSAGE "-" reads the message from stdin', () => {
  it('prepare takes the text on stdin, its trailing line breaks dropped', async () => {
    const { code, stdout } = await run(['prepare', '--root', root, '--target', 'scratchpad', '-', '--json'], 'line one\nline two — 長い 🚀\n\n');
    expect(code).toBe(0);
    const [message] = (JSON.parse(stdout) as { messages: { content: { text: string }[] }[] }).messages;
    expect(message!.content[0]!.text).toBe('line one\nline two — 長い 🚀');
  });

  it('send appends a message longer than any one shell argument may be, piped through the binary', async () => {
    const copy = await copyRoot(root);
    // Linux caps one argument at 128 KiB; this is 300 KiB.
    const long = `${'a long pasted log line\n'.repeat(300 * 1024 / 23)}the end`;
    const sent = await json<{ appendedSeqs: number[]; messages: { content: { text: string }[] }[] }>(['send', '--root', copy, '--target', 'scratchpad', '-'], { input: long });
    expect(sent.appendedSeqs).toHaveLength(1);
    expect(sent.messages[0]!.content[0]!.text).toBe(long);
    const shown = await json<{ conversation: { text: string }[] }>(['show', 'scratchpad', '--root', copy]);
    expect(shown.conversation.at(-1)!.text).toBe(long);
  });

  it('more than the cap is STDIN_TOO_LARGE, and nothing is written', async () => {
    const copy = await copyRoot(root);
    const before = await hashTree(copy);
    const result = await sessref(['send', '--root', copy, '--target', 'scratchpad', '-'], { input: Buffer.alloc(MAX_STDIN_BYTES + 1, 'a') });
    expect(expectFailure(result, 1, 'STDIN_TOO_LARGE')).toBe(`the message on stdin is over ${MAX_STDIN_BYTES} bytes (1 MiB)`);
    expect(await hashTree(copy)).toEqual(before);
  });

  it('exactly the cap is read', async () => {
    const { code, stdout } = await run(['prepare', '--root', root, '--target', 'scratchpad', '-', '--json'], Buffer.alloc(MAX_STDIN_BYTES, 'b'));
    expect(code).toBe(0);
    expect((JSON.parse(stdout) as { messages: { content: { text: string }[] }[] }).messages[0]!.content[0]!.text).toHaveLength(MAX_STDIN_BYTES);
  });

  it('bytes that are not UTF-8 are a usage error', async () => {
    const result = await run(['prepare', '--root', root, '--target', 'scratchpad', '-'], Buffer.from([0x68, 0x69, 0xff, 0xfe]));
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error USAGE: the message on stdin is not UTF-8 text/);
  });

  it('prepare and send say so in their help', async () => {
    for (const command of ['prepare', 'send']) expect((await run([command, '--help'])).stdout).toMatch(/A\s+MESSAGE of - is read from\s+stdin/);
  });
});
