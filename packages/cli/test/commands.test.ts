/**
 * Commands as data: every flag a command does not take is a usage error, every
 * numeric flag goes through the one integer parser, and the failure tables are
 * total over the code unions. In process: nothing here reads a root.
 */
import { SessionQueryError, type SessionQueryErrorCode } from '@deepseek-ai/dsh-session-query';
import { SESSION_REFERENCE_ERROR_CODES, SessionReferenceError } from '@sessref/core';
import { Writable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { main } from '../src/cli.js';
import { GLOBAL_OPTIONS, OPTIONS, isOptionName, optionSyntax } from '../src/commands/options.js';
import { parseCommandLine } from '../src/commands/parse.js';
import { COMMANDS } from '../src/commands/table.js';
import { describeFailure } from '../src/errors.js';
import { classify } from '../src/classify.js';
import { CliError, EXIT_CODE, FAILURE_CLASS, HTTP_STATUS, type FailureClass, type FailureCode } from '../src/failure.js';
import { toHttpError } from '../src/server/http.js';

/** A stream that keeps what is written to it. */
function sink(): Writable & { text: string } {
  const stream = Object.assign(
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        stream.text += chunk.toString();
        done();
      },
    }),
    { text: '' },
  );
  return stream;
}

async function run(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = sink();
  const stderr = sink();
  const code = await main(argv, { stdout, stderr, env: { NO_COLOR: '1' } });
  // Writes to a Writable land on the next tick.
  await new Promise((resolve) => setImmediate(resolve));
  return { code, stdout: stdout.text, stderr: stderr.text };
}

/** `--name`, with a value when the flag takes one. */
function flag(name: keyof typeof OPTIONS): string[] {
  return OPTIONS[name].value === 'flag' ? [`--${name}`] : [`--${name}`, '1'];
}

describe('flags a command does not take', () => {
  const cases = COMMANDS.flatMap((command) =>
    Object.keys(OPTIONS)
      .filter(isOptionName)
      .filter((name) => !(name in GLOBAL_OPTIONS) && !(name in command.options))
      .map((name) => [command.name, name] as const),
  );

  it.each(cases)('%s --%s is a usage error naming both', async (command, name) => {
    const result = await run([command, ...flag(name), 'x', 'y']);
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: `error USAGE: ${command} does not take --${name} (fix: run \`sessref ${command} --help\` for its options)\n`,
    });
  });

  it('a flag no command takes keeps node:util\'s message', async () => {
    expect((await run(['show', '--verbose', 'x'])).stderr).toBe("error USAGE: Unknown option '--verbose' (fix: run `sessref --help` for usage)\n");
  });

  it('every command help lists exactly the flags it takes', () => {
    for (const command of COMMANDS) {
      for (const name of Object.keys(command.options).filter(isOptionName)) expect(parseCommandLine([command.name, ...flag(name), 'x']).command).toBe(command);
    }
  });
});

describe('arguments a command does not take', () => {
  it.each(COMMANDS.map((command) => [command.name, command.operands.length] as const))('%s refuses a word past its %i argument(s), before reading a root', async (command, count) => {
    const words = [...Array.from({ length: count }, (_, index) => `w${index}`), 'extra'];
    const result = await run([command, '--root', '/nonexistent/sessref-root', ...words]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(new RegExp(`^error USAGE: ${command} takes .*, got ${words.length}: .*"extra" \\(fix: quote an argument that has spaces\\)\n$`));
  });

  it('an unquoted message is refused, never cut to its first word', async () => {
    expect((await run(['send', '--target', 'notes', 'hello', 'world'])).stderr).toBe(
      'error USAGE: send takes MESSAGE, got 2: "hello" "world" (fix: quote an argument that has spaces)\n',
    );
  });
});

describe('numeric flags', () => {
  const numeric = Object.keys(OPTIONS)
    .filter(isOptionName)
    .flatMap((name) => {
      const value = OPTIONS[name].value;
      return typeof value === 'object' ? [{ name, range: value, command: COMMANDS.find((command) => name in command.options)! }] : [];
    });

  it('are --limit, --max-bytes, --port and --sync-every', () => {
    expect(numeric.map(({ name }) => name).sort()).toEqual(['limit', 'max-bytes', 'port', 'sync-every']);
  });

  it.each(numeric)('--$name reads a whole number in its range', ({ name, range, command }) => {
    fc.assert(
      fc.property(fc.integer({ min: range.min, max: Math.min(range.max, Number.MAX_SAFE_INTEGER) }), (value) => {
        expect(parseCommandLine([command.name, `--${name}`, String(value)]).flags[name]).toBe(value);
      }),
    );
  });

  it.each(numeric)('--$name refuses anything else in one message shape', ({ name, range, command }) => {
    const refused = fc.oneof(
      fc.constantFrom('', ' 1', '1 ', '+1', '0x10', '1e3', '1.5', '1.0', 'one', '٣', '99999999999999999999', '9007199254740992'),
      fc.integer({ max: range.min - 1 }).map(String),
      fc.bigInt({ min: BigInt(range.max) + 1n }).map(String),
      fc.string().filter((raw) => !/^\d+$/.test(raw)),
    );
    fc.assert(
      fc.property(refused, (raw) => {
        const thrown = captured(() => parseCommandLine([command.name, `--${name}=${raw}`]));
        expect(thrown).toBeInstanceOf(CliError);
        expect(thrown).toMatchObject({ code: 'USAGE', exitCode: 1, message: `--${name} must be ${range.words}, got "${raw}"` });
      }),
    );
  });

  it('0 is a port (a free one), never a limit or a budget', () => {
    expect(parseCommandLine(['serve', '--port', '0']).flags.port).toBe(0);
    expect(captured(() => parseCommandLine(['list', '--limit', '0']))).toMatchObject({ message: '--limit must be a positive integer, got "0"' });
    expect(captured(() => parseCommandLine(['show', 'x', '--max-bytes', '0']))).toMatchObject({ message: '--max-bytes must be a positive integer, got "0"' });
  });
});

describe('help comes from the table', () => {
  it.each(COMMANDS)('$name --help names every option it takes', async (command) => {
    const { code, stdout } = await run([command.name, '--help']);
    expect(code).toBe(0);
    for (const name of Object.keys(command.options).filter(isOptionName)) expect(stdout).toContain(optionSyntax(name));
    for (const example of command.examples) expect(stdout).toContain(`    ${example}\n`);
  });
});

function isQueryCode(code: FailureCode): code is SessionQueryErrorCode {
  return code.startsWith('SESSION_QUERY_');
}

function captured(work: () => unknown): unknown {
  try {
    work();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

describe('one failure classifier', () => {
  const codes = Object.keys(FAILURE_CLASS) as FailureCode[];
  const classes = Object.keys(EXIT_CODE) as FailureClass[];

  it('each class has the exit code and HTTP status the README documents', () => {
    expect(Object.fromEntries(classes.map((kind) => [kind, [EXIT_CODE[kind], HTTP_STATUS[kind]]]))).toEqual({
      usage: [1, 400],
      'invalid-input': [1, 400],
      'not-found': [1, 404],
      conflict: [1, 409],
      'over-budget': [1, 422],
      cancelled: [1, 499],
      unavailable: [1, 503],
      misconfigured: [1, 500],
      storage: [2, 502],
      unexpected: [2, 500],
    });
  });

  it('a failure exits 2 exactly when it is the root\'s or unexpected, and is a 5xx exactly when it is not the client\'s', () => {
    for (const kind of classes) {
      expect(EXIT_CODE[kind] === 2, kind).toBe(kind === 'storage' || kind === 'unexpected');
      expect(HTTP_STATUS[kind] >= 500, kind).toBe(['storage', 'unexpected', 'misconfigured', 'unavailable'].includes(kind));
    }
  });

  it('the CLI and the server read the same class off any coded error', () => {
    const coded = fc.oneof(
      fc.constantFrom(...SESSION_REFERENCE_ERROR_CODES).map((code) => new SessionReferenceError('x', code)),
      fc.constantFrom(...codes.filter(isQueryCode)).map((code) => new SessionQueryError('session "x" gone', code)),
      fc.constantFrom('USAGE', 'NO_ROOT', 'ROOT_NOT_A_DIRECTORY', 'ROOT_UNREADABLE', 'ROOT_NOT_EMPTY', 'SEED_EXISTS', 'PORT_IN_USE' as const).map((code) => new CliError(code, 'x')),
    );
    fc.assert(
      fc.property(coded, (error) => {
        const failure = classify(error);
        expect(failure.code).toBe(error.code);
        expect(failure.class).toBe(FAILURE_CLASS[error.code]);
        expect(describeFailure(error).exitCode).toBe(EXIT_CODE[failure.class]);
        expect(toHttpError(error).status).toBe(HTTP_STATUS[failure.class]);
      }),
    );
  });

  it('a failed read is what the host read failure under it was', () => {
    const missing = new SessionReferenceError('could not read session "gone"', 'SESSION_REFERENCE_READ_FAILED', {
      cause: new SessionQueryError('session "gone" not found', 'SESSION_QUERY_SESSION_NOT_FOUND'),
    });
    expect([describeFailure(missing).exitCode, toHttpError(missing).status, toHttpError(missing).code]).toEqual([1, 404, 'SESSION_REFERENCE_READ_FAILED']);
    const unreadable = new SessionReferenceError('could not read session "x"', 'SESSION_REFERENCE_READ_FAILED', { cause: new Error('EIO') });
    expect([describeFailure(unreadable).exitCode, toHttpError(unreadable).status]).toEqual([2, 502]);
  });

  it('anything unrecognized is exit 2 with its own code, and an opaque 500', () => {
    const full = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    expect(describeFailure(full, 'scratchpad')).toEqual({
      code: 'ENOSPC',
      message: 'session "scratchpad": no space left on device, write',
      hint: 'free space on the disk that holds the root, then retry',
      exitCode: 2,
    });
    expect(toHttpError(full)).toMatchObject({ status: 500, code: 'INTERNAL', message: 'internal error; see the server log' });
    expect(describeFailure('thrown text')).toMatchObject({ code: 'STORAGE', exitCode: 2 });
  });
});
