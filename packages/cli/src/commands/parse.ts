/** The command line, read against the command table: a flag the command does not take, or a malformed number, is a usage error. */
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';
import { didYouMean } from '../did-you-mean.js';
import { usageError } from '../failure.js';
import type { Command, ParsedFlags } from './command.js';
import { GLOBAL_OPTIONS, OPTIONS, isOptionName, parseInteger } from './options.js';
import { COMMANDS } from './table.js';

export interface CommandLine {
  /** Absent for a bare `sessref` or `sessref --help`. */
  readonly command?: Command;
  /** The positional arguments after the command's name. */
  readonly operands: readonly string[];
  readonly flags: ParsedFlags;
}

/** Every flag, as node:util reads it: a flag and its value are read alike wherever they stand. */
const PARSE_CONFIG: ParseArgsOptionsConfig = Object.fromEntries(
  Object.entries(OPTIONS).map(([name, spec]) => [
    name,
    { type: spec.value === 'flag' ? 'boolean' : 'string', ...(spec.value === 'strings' ? { multiple: true } : {}), ...('short' in spec ? { short: spec.short } : {}) },
  ]),
);

export function parseCommandLine(argv: readonly string[]): CommandLine {
  const { values, positionals, tokens } = read(argv);
  const [name, ...operands] = positionals;
  const command = name === undefined ? undefined : COMMANDS.find((candidate) => candidate.name === name);
  if (name !== undefined && command === undefined) throw usageError(`unknown command "${name}"${didYouMean(name, COMMANDS.map((known) => known.name), (known) => `"${known}"`)}`);
  if (command !== undefined && values.help !== true) {
    for (const token of tokens) if (token.kind === 'option') checkTaken(command, token.name);
  }
  return { ...(command === undefined ? {} : { command }), operands, flags: typedFlags(values) };
}

function read(argv: readonly string[]) {
  try {
    return parseArgs({ args: withDashValues(argv), options: PARSE_CONFIG, allowPositionals: true, strict: true, tokens: true });
  } catch (error) {
    // Node's advice on positionals that start with '-' never applies here.
    const message = String(error instanceof Error ? error.message : error).replace(/\. To specify a positional argument .*$/s, '');
    throw usageError(`${message}${flagSuggestion(error)}`);
  }
}

/** `; did you mean --json?` for a flag node:util does not know, spelled `--…`: the flags within two edits of it. */
function flagSuggestion(error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code;
  const typed = code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && error instanceof Error ? /^Unknown option '--([^'=]+)'/.exec(error.message)?.[1] : undefined;
  return typed === undefined ? '' : didYouMean(typed, Object.keys(OPTIONS), (name) => `--${name}`);
}

/** Every way a flag can be spelled alone: `--json`, `-h`. */
const FLAG_SPELLINGS = new Set(Object.entries(OPTIONS).flatMap(([name, spec]) => [`--${name}`, ...('short' in spec ? [`-${spec.short}`] : [])]));

/**
 * `--limit -1` as `--limit=-1`: node:util refuses a value that starts with a
 * dash as ambiguous, which would hide the flag's own refusal ("--limit must
 * be a positive integer"). A word after a flag that takes a value is its
 * value unless it is `--something` or one of our short flags; nothing after
 * `--` is touched.
 */
function withDashValues(argv: readonly string[]): string[] {
  const args: string[] = [];
  for (let index = 0; index < argv.length; index++) {
    const word = argv[index]!;
    if (word === '--') return [...args, ...argv.slice(index)];
    const next = argv[index + 1];
    const name = word.slice(2);
    if (word.startsWith('--') && isOptionName(name) && OPTIONS[name].value !== 'flag' && next !== undefined && /^-[^-]/.test(next) && !FLAG_SPELLINGS.has(next)) {
      args.push(`${word}=${next}`);
      index++;
    } else args.push(word);
  }
  return args;
}

/** A flag some other command takes is still no flag of this one. */
function checkTaken(command: Command, name: string): void {
  if (name in GLOBAL_OPTIONS || name in command.options) return;
  throw usageError(`${command.name} does not take --${name}`, `run \`sessref ${command.name} --help\` for its options`);
}

/** Each value as its flag declares it: true, the text, every text of a flag given again, or a number read by the one integer parser. */
function typedFlags(values: Record<string, string | boolean | (string | boolean)[] | undefined>): ParsedFlags {
  const flags: Record<string, string | boolean | number | readonly string[]> = {};
  for (const [name, value] of Object.entries(values)) {
    if (value === undefined || !isOptionName(name)) continue;
    if (Array.isArray(value)) {
      flags[name] = value.filter((item) => typeof item === 'string');
      continue;
    }
    const kind = OPTIONS[name].value;
    flags[name] = typeof value === 'string' && typeof kind === 'object' ? parseInteger(`--${name}`, value, kind) : value;
  }
  return flags;
}
