/**
 * Every flag sessref knows, declared once: what value it takes, and for the
 * global ones what they do. Which command takes which of the others, and
 * what it means there, is in the command table (table.ts).
 */
import { usageError } from '../failure.js';

/** A whole number within bounds, and how a refusal says which. */
export interface IntegerRange {
  readonly min: number;
  readonly max: number;
  /** Completes "--flag must be …". */
  readonly words: string;
}

export const POSITIVE_INTEGER: IntegerRange = { min: 1, max: Number.MAX_SAFE_INTEGER, words: 'a positive integer' };
const PORT_NUMBER: IntegerRange = { min: 0, max: 65535, words: 'a port number from 0 to 65535' };

/** `strings`: a flag that may be given again, each value kept in order (`--ssh-option`). */
type OptionValue = 'flag' | 'string' | 'strings' | IntegerRange;

interface OptionSpec {
  readonly value: OptionValue;
  /** The value's name in usage lines, e.g. `ID` in `--target ID`. */
  readonly placeholder?: string;
  readonly short?: string;
}

export const OPTIONS = {
  root: { value: 'string', placeholder: 'DIR' },
  json: { value: 'flag' },
  debug: { value: 'flag' },
  help: { value: 'flag', short: 'h' },
  version: { value: 'flag', short: 'V' },
  target: { value: 'string', placeholder: 'ID' },
  limit: { value: POSITIVE_INTEGER, placeholder: 'N' },
  'max-bytes': { value: POSITIVE_INTEGER, placeholder: 'N' },
  cwd: { value: 'string', placeholder: 'DIR' },
  title: { value: 'string', placeholder: 'T' },
  label: { value: 'string', placeholder: 'L' },
  force: { value: 'flag' },
  port: { value: PORT_NUMBER, placeholder: 'N' },
  host: { value: 'string', placeholder: 'H' },
  'seed-if-empty': { value: 'flag' },
  sources: { value: 'string', placeholder: 'LIST' },
  resources: { value: 'flag' },
  around: { value: 'string', placeholder: 'PHRASE' },
  'ssh-option': { value: 'strings', placeholder: 'OPT' },
  'sync-every': { value: POSITIVE_INTEGER, placeholder: 'MIN' },
} as const satisfies Record<string, OptionSpec>;

export type OptionName = keyof typeof OPTIONS;

/** Every command takes these. */
export const GLOBAL_OPTIONS = {
  root: "session root; else $SESSREF_ROOT, else dsh's sessions ($DSH_HOME/sessions, else ~/.dsh/sessions) when they exist, else the demo root ./.sessref/sessions",
  json: 'machine-readable output (errors too, as JSON on stderr)',
  debug: 'print stack traces on errors',
  help: 'help for a command (sessref <command> --help)',
  version: "print sessref's version",
} as const satisfies { readonly [K in OptionName]?: string };

export type GlobalOptionName = keyof typeof GLOBAL_OPTIONS;
export type CommandOptionName = Exclude<OptionName, GlobalOptionName>;

/** What a flag's value is once parsed: true or false, the text, every text given, or the number. */
export type ParsedValue<K extends OptionName> = (typeof OPTIONS)[K]['value'] extends 'flag'
  ? boolean
  : (typeof OPTIONS)[K]['value'] extends 'string'
    ? string
    : (typeof OPTIONS)[K]['value'] extends 'strings'
      ? readonly string[]
      : number;

export function isOptionName(name: string): name is OptionName {
  return Object.hasOwn(OPTIONS, name);
}

/** `--target ID`, `--force`, `-h, --help`: how usage lines and help name a flag. */
export function optionSyntax(name: OptionName): string {
  const spec: OptionSpec = OPTIONS[name];
  const long = spec.placeholder === undefined ? `--${name}` : `--${name} ${spec.placeholder}`;
  return spec.short === undefined ? long : `-${spec.short}, ${long}`;
}

/**
 * The one parser of every numeric setting: a whole number, written plainly
 * in digits, within its range. `label` is how the user wrote the setting
 * (`--limit`, `SESSREF_LOCK_WAIT_MS`).
 */
export function parseInteger(label: string, raw: string, range: IntegerRange, hint?: string): number {
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < range.min || value > range.max) throw usageError(`${label} must be ${range.words}, got "${raw}"`, hint);
  return value;
}
