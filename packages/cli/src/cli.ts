import { parseArgs } from 'node:util';
import { Engine } from './engine/engine.js';
import { CliError, formatError, toCliError, usageError } from './errors.js';
import { COMMAND_HELP, MAIN_HELP } from './help.js';
import { progress, styleFor, writeLine, type Io } from './output.js';
import { isEmptyRoot, resolveRoot } from './root.js';
import { checkBytes } from './commands/args.js';
import { listCommand, showCommand } from './commands/sessions.js';
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
  let subject: string | undefined;
  try {
    const { values, positionals } = parse(argv);
    debug = values.debug;
    const [command, ...rest] = positionals;
    if (command === undefined || (values.help && command === undefined)) {
      writeLine(io.stdout, MAIN_HELP);
      return command === undefined && !values.help ? 1 : 0;
    }
    const help = COMMAND_HELP[command];
    if (help === undefined) throw usageError(`unknown command "${command}"`);
    if (values.help) {
      writeLine(io.stdout, help);
      return 0;
    }
    subject = values.target ?? (command === 'show' || command === 'mention' ? rest[0] : undefined);
    await run(command, rest, values, io);
    return 0;
  } catch (thrown) {
    const error = toCliError(thrown, subject);
    report(io, error, debug);
    return error.exitCode;
  }
}

async function run(command: string, args: string[], flags: Flags, io: Io): Promise<void> {
  const root = resolveRoot(flags.root, io.env);
  const json = flags.json;
  switch (command) {
    case 'uri':
      return uriCommand(io, { action: args[0] ?? '', value: required(args[1], 'uri needs an action and a value'), json });
    case 'mention':
      return withEngine(root, io, {}, (engine) => mentionCommand(engine, io, { id: required(args[0], 'mention needs a session id'), ...optional('label', flags.label), json }), true);
    case 'seed':
      return seedCommand(root, io, { force: flags.force });
    case 'serve':
      return serveCommand({ root, host: flags.host ?? '127.0.0.1', port: flags.port === undefined ? 7317 : Number(flags.port), seedIfEmpty: flags['seed-if-empty'] }, io);
  }
  // `new` may start a root; every other command needs sessions to work on.
  if (command !== 'new') requireRoot(root);
  const resolver = flags['max-bytes'] === undefined ? {} : { maxReferenceBytes: checkBytes(flags['max-bytes']) };
  await withEngine(root, io, resolver, async (engine) => {
    switch (command) {
      case 'list':
        return listCommand(engine, io, { query: args[0] ?? '', ...optional('target', flags.target), ...optional('limit', flags.limit), json });
      case 'show':
        return showCommand(engine, io, { id: required(args[0], 'show needs a session id'), json });
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
  resolver: { maxReferenceBytes?: number },
  work: (engine: Engine) => Promise<void>,
  optionalRoot = false,
): Promise<void> {
  if (optionalRoot && isEmptyRoot(root)) return work(undefined as unknown as Engine);
  const spinner = progress(io, `loading ${root}`);
  const engine = await Engine.open({ root, resolver }).finally(() => spinner.stop());
  try {
    await work(engine);
  } finally {
    await engine.close();
  }
}

function requireRoot(root: string): void {
  if (isEmptyRoot(root)) {
    throw new CliError(`no sessions at ${root}`, 1, 'NO_ROOT', 'pass --root DIR, set SESSREF_ROOT, or run `sessref seed`');
  }
}

function required(value: string | undefined, message: string): string {
  if (value === undefined) throw usageError(message);
  return value;
}

function optional<K extends string>(key: K, value: string | undefined): { [P in K]?: string } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: string };
}

function report(io: Io, error: CliError, debug: boolean): void {
  writeLine(io.stderr, formatError(error, styleFor(io.stderr, io.env)));
  if (debug) writeLine(io.stderr, (error.cause instanceof Error ? error.cause.stack : undefined) ?? error.stack ?? '');
}
