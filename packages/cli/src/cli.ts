import { parseArgs } from 'node:util';
import { Engine, type EngineOptions } from './engine/engine.js';
import { formatError, toCliError, usageError, type CliError } from './errors.js';
import { COMMAND_HELP, MAIN_HELP } from './help.js';
import { progress, styleFor, writeLine, type Io } from './output.js';
import { checkRoot, describeRoot, noSessions, resolveRoot, type SessionRoot } from './root.js';
import { assertSupportedRoot } from '@sessref/host';
import { explainMissing } from './engine/listing.js';
import { checkBytes } from './commands/args.js';
import { listCommand, showCommand } from './commands/sessions.js';
import { searchCommand } from './commands/search.js';
import { stepCommand } from './commands/step.js';
import { mentionCommand, newCommand, uriCommand } from './commands/misc.js';
import { seedCommand } from './commands/seed.js';
import { serveCommand } from './commands/serve.js';

const OPTIONS = {
  root: { type: 'string' },
  json: { type: 'boolean', default: false },
  debug: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
  target: { type: 'string' },
  limit: { type: 'string' },
  'max-bytes': { type: 'string' },
  cwd: { type: 'string' },
  title: { type: 'string' },
  label: { type: 'string' },
  force: { type: 'boolean', default: false },
  port: { type: 'string' },
  host: { type: 'string' },
  'seed-if-empty': { type: 'boolean', default: false },
} as const;

type Flags = ReturnType<typeof parse>['values'];

function parse(argv: string[]) {
  try {
    return parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    // Node's advice on positionals that start with '-' never applies here.
    throw usageError((error as Error).message.replace(/\. To specify a positional argument .*$/s, ''));
  }
}

/** Run one command line; resolves to the process exit code. */
export async function main(argv: string[], io: Io): Promise<number> {
  let debug = argv.includes('--debug');
  let json = argv.includes('--json');
  let subject: string | undefined;
  try {
    const { values, positionals } = parse(argv);
    debug = values.debug;
    json = values.json;
    const [command, ...rest] = positionals;
    if (command === undefined || (values.help && command === undefined)) {
      writeLine(io.stdout, `${MAIN_HELP}\n${helpRoot(values, io)}`);
      return command === undefined && !values.help ? 1 : 0;
    }
    const help = COMMAND_HELP[command];
    if (help === undefined) throw usageError(`unknown command "${command}"`);
    if (values.help) {
      writeLine(io.stdout, `${help}\n${helpRoot(values, io)}`);
      return 0;
    }
    subject = values.target ?? (command === 'show' || command === 'mention' ? rest[0] : undefined);
    await run(command, rest, values, io);
    return 0;
  } catch (thrown) {
    const error = toCliError(thrown, subject);
    report(io, error, debug, json);
    return error.exitCode;
  }
}

async function run(command: string, args: string[], flags: Flags, io: Io): Promise<void> {
  const json = flags.json;
  if (command === 'uri') return uriCommand(io, { action: args[0] ?? '', value: required(args[1], 'uri needs an action and a value'), json });
  // Demo sessions never go into dsh's own root unless the user names it.
  const writesDemo = command === 'seed' || (command === 'serve' && flags['seed-if-empty']);
  const sessionRoot = resolveRoot(flags.root, io.env, { dsh: !writesDemo });
  const root = sessionRoot.path;
  const state = checkRoot(sessionRoot);
  // A root in a shape sessref does not read is refused before anything is read or written.
  if (state === 'sessions') assertSupportedRoot(root);
  if (command === 'list' || command === 'serve') announceRoot(io, sessionRoot, json);
  switch (command) {
    case 'mention':
      return withEngine(root, io, {}, (engine) => mentionCommand(engine, io, { id: required(args[0], 'mention needs a session id'), ...optional('label', flags.label), json }), state !== 'sessions');
    case 'seed':
      return seedCommand(root, io, { force: flags.force });
    case 'serve':
      return serveCommand(
        { root, host: flags.host ?? '127.0.0.1', port: flags.port === undefined ? 7317 : Number(flags.port), seedIfEmpty: flags['seed-if-empty'], ...lockWait(io.env) },
        io,
      );
  }
  // `new` may start a root; every other command needs sessions to work on.
  if (command !== 'new' && state !== 'sessions') throw noSessions(sessionRoot, state);
  const resolver = flags['max-bytes'] === undefined ? {} : { maxReferenceBytes: checkBytes(flags['max-bytes']) };
  await withEngine(root, io, { resolver, ...(command === 'send' ? lockWait(io.env) : {}) }, async (engine) => {
    switch (command) {
      case 'list':
        return listCommand(engine, io, { query: args[0] ?? '', ...optional('target', flags.target), ...optional('limit', flags.limit), json });
      case 'show':
        return showCommand(engine, io, { id: required(args[0], 'show needs a session id'), json });
      case 'search':
        return searchCommand(engine, io, { query: required(args[0], 'search needs a QUERY'), ...optional('target', flags.target), ...optional('limit', flags.limit), json });
      case 'prepare':
      case 'send':
        return stepCommand(engine, io, {
          target: required(flags.target, `${command} needs --target ID`),
          message: required(args[0], `${command} needs a MESSAGE`),
          json,
          send: command === 'send',
        });
      case 'new':
        return newCommand(engine, io, { ...optional('cwd', flags.cwd), ...optional('title', flags.title), json });
    }
  });
}

async function withEngine(
  root: string,
  io: Io,
  options: Omit<EngineOptions, 'root'>,
  work: (engine: Engine) => Promise<void>,
  /** The root holds no sessions and the command can do without them (`mention`). */
  withoutSessions = false,
): Promise<void> {
  if (withoutSessions) return work(undefined as unknown as Engine);
  const spinner = progress(io, `loading ${root}`);
  const engine = await Engine.open({ root, ...options }).finally(() => spinner.stop());
  try {
    await work(engine);
  } catch (error) {
    throw await explainMissing(engine, error);
  } finally {
    await engine.close();
  }
}

/** `SESSREF_LOCK_WAIT_MS`: how long a send waits for another sessref process writing the same session. */
function lockWait(env: NodeJS.ProcessEnv): { lockWaitMs?: number } {
  const raw = env.SESSREF_LOCK_WAIT_MS;
  if (raw === undefined) return {};
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(Number(raw))) {
    throw usageError(`SESSREF_LOCK_WAIT_MS must be a whole number of milliseconds, got "${raw}"`, 'unset it, or set a number such as 10000');
  }
  return { lockWaitMs: Number(raw) };
}

/** Which root `list` and `serve` use, and why: one line on stderr, JSON under `--json`. */
function announceRoot(io: Io, root: SessionRoot, json: boolean): void {
  if (json) writeLine(io.stderr, JSON.stringify({ root: { path: root.path, source: root.source, reason: root.reason } }));
  else writeLine(io.stderr, styleFor(io.stderr, io.env).dim(describeRoot(root)));
}

/** The help's last line: the root a command would use now, and why. */
function helpRoot(flags: Flags, io: Io): string {
  try {
    const root = resolveRoot(flags.root, io.env);
    return `Session root: ${root.path} (${root.reason})`;
  } catch (error) {
    return `Session root: none (${toCliError(error).message})`;
  }
}

function required(value: string | undefined, message: string): string {
  if (value === undefined) throw usageError(message);
  return value;
}

function optional<K extends string>(key: K, value: string | undefined): { [P in K]?: string } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: string };
}

/** One line on stderr: `error CODE: message (fix: hint)`, or under `--json` the same facts as one JSON object. */
function report(io: Io, error: CliError, debug: boolean, json: boolean): void {
  const stack = debug ? ((error.cause instanceof Error ? error.cause.stack : undefined) ?? error.stack ?? '') : undefined;
  if (json) {
    const body = { code: error.code, message: error.message, ...(error.hint === undefined ? {} : { hint: error.hint }), exitCode: error.exitCode };
    writeLine(io.stderr, JSON.stringify({ error: stack === undefined ? body : { ...body, stack } }));
    return;
  }
  writeLine(io.stderr, formatError(error, styleFor(io.stderr, io.env)));
  if (stack !== undefined) writeLine(io.stderr, stack);
}
