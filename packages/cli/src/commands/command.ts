/**
 * A command as data: its name, what it does, its operands and options, its
 * examples and its handler. The help text is generated from it (help.ts),
 * the parser checks flags against it (parse.ts), and the handler gets its
 * operands and flags already checked and typed.
 */
import type { Engine, EngineOptions } from '../engine/engine.js';
import { usageError } from '../failure.js';
import type { Io } from '../output.js';
import { OPTIONS, isOptionName, optionSyntax, type CommandOptionName, type GlobalOptionName, type OptionName, type ParsedValue } from './options.js';
import type * as SessionRoot from './session-root.js';
import type { OpenedRoot } from './session-root.js';

/**
 * What the runner loads, with the command, for one that needs the root: its
 * checks, the engine and the helpers that turn flags into engine options.
 * A command that needs neither (`uri`, `--help`) never loads the host.
 */
type RootTools = typeof SessionRoot;

export interface Operand {
  /** As the usage line shows it: `ID`, `QUERY`, `MESSAGE`. */
  readonly name: string;
  /** A required operand: completes "<command> needs …" when it is missing. */
  readonly needs?: string;
}

interface CommandOption {
  readonly description: string;
  /** What applies when the flag is not given, as help shows it. */
  readonly default?: string;
  /** The command cannot run without it. */
  readonly required?: true;
}

export type CommandOptions = { readonly [K in CommandOptionName]?: CommandOption };

/** Flags as the parser read them; a flag not given is absent. */
export type ParsedFlags = { readonly [K in OptionName]?: ParsedValue<K> };

/** A flag not given is false, or undefined unless the command requires it. */
type FlagValue<K extends OptionName, Required> = ParsedValue<K> extends boolean ? boolean : Required extends true ? ParsedValue<K> : ParsedValue<K> | undefined;

type FlagValues<P extends CommandOptions> = {
  readonly [K in GlobalOptionName | (keyof P & CommandOptionName)]: FlagValue<K, K extends keyof P ? (P[K] extends { readonly required: true } ? true : false) : false>;
};

type OperandValues<O extends readonly Operand[]> = {
  readonly [A in O[number] as A['name']]: A extends { readonly needs: string } ? string : string | undefined;
};

/** What every handler gets: its operands and flags, checked and typed, and the streams. */
interface Call<O extends readonly Operand[], P extends CommandOptions> {
  readonly operands: OperandValues<O>;
  readonly flags: FlagValues<P>;
  readonly io: Io;
  /** This run writes the demo sessions (see {@link CommandSpecBase.seedsDemo}). */
  readonly seeds: boolean;
}

type Handler<O extends readonly Operand[], P extends CommandOptions, Provided> = (call: Call<O, P> & Provided) => Promise<void> | void;

/**
 * What a command needs before its handler runs, declared in its row and
 * prepared by the one runner below: nothing (`uri`), the session root,
 * resolved and checked (`seed`, `serve`), or an engine booted over it with
 * the options its flags ask for (every command that reads sessions).
 */
type Needs<O extends readonly Operand[], P extends CommandOptions> =
  | { readonly needs?: undefined; run: Handler<O, P, object> }
  | { readonly needs: 'root'; run: Handler<O, P, { readonly opened: OpenedRoot; readonly tools: RootTools }> }
  | {
      readonly needs: 'engine';
      /** How the engine boots for a run with these flags, beyond the root: the budget, the lock wait, the sources. */
      readonly engine?: (flags: FlagValues<P>, env: NodeJS.ProcessEnv, tools: RootTools) => Omit<EngineOptions, 'root'>;
      run: Handler<O, P, { readonly opened: OpenedRoot; readonly engine: Engine }>;
    };

type CommandSpec<O extends readonly Operand[], P extends CommandOptions> = CommandSpecBase<O, P> & Needs<O, P>;

interface CommandSpecBase<O extends readonly Operand[], P extends CommandOptions> {
  readonly name: string;
  /** One line in `sessref --help`. */
  readonly summary: string;
  /** The operands as the usage line shows them, when the operand names alone do not say it. */
  readonly synopsis?: string;
  readonly description: string;
  readonly operands: O;
  readonly options: P;
  /** What `--json` prints on stdout, for a command whose output has a JSON form. */
  readonly json?: string;
  readonly examples: readonly string[];
  /**
   * Whether a run with these flags writes the demo sessions (`seed`, `serve
   * --seed-if-empty`): its root is then the demo root unless the user names
   * another, never dsh's own, and only the demo root may be created. The
   * command's help and its run (as `seeds`) read it from here alike.
   */
  readonly seedsDemo?: (flags: ParsedFlags) => boolean;
  /** Print which root and why on stderr, then a hint when it holds no sessions (`list`, `serve`). */
  readonly announcesRoot?: true;
  /** Writes dsh sessions into the root (`new`, `send`, `seed`): a root inside another agent's folder is refused first. */
  readonly writes?: true;
  /** Runs until stopped (`serve`, `mcp`): it looks at the root afresh for every request, never through a run's first look. */
  readonly longLived?: true;
}

/** A command with its operand and flag types erased, as the table holds it. */
export interface Command extends CommandSpecBase<readonly Operand[], CommandOptions> {
  /** Check the operands and flags the parser read against this command, prepare what it needs, then run it. */
  run(positionals: readonly string[], flags: ParsedFlags, io: Io): Promise<void>;
}

export function defineCommand<const O extends readonly Operand[], const P extends CommandOptions>(spec: CommandSpec<O, P>): Command {
  return {
    ...spec,
    run: async (positionals, parsed, io) => {
      // Operands first: a word too many is the first thing to say.
      const operands = operandValues(spec, positionals);
      const flags = flagValues(spec, parsed);
      const call: Call<O, P> = { operands, flags, io, seeds: spec.seedsDemo?.(parsed) === true };
      if (spec.needs === undefined) return spec.run(call);
      const tools = await import('./session-root.js');
      // A run that writes nothing and ends looks at each directory and log of the root once, however many walks it makes.
      const letGo = spec.writes === true || spec.longLived === true ? undefined : tools.holdFirstLook();
      try {
        return await runWithRoot(spec, call, tools);
      } finally {
        letGo?.();
      }
    },
  };
}

/** Open the root, boot the engine when the command needs one, and run it. */
async function runWithRoot<O extends readonly Operand[], P extends CommandOptions>(spec: CommandSpec<O, P>, call: Call<O, P>, tools: RootTools): Promise<void> {
  const { flags, io } = call;
  const opened = tools.openRoot(flags, io, { announce: spec.announcesRoot === true, seeds: call.seeds, writes: spec.writes === true });
  if (spec.needs === 'root') return spec.run({ ...call, opened, tools });
  if (spec.needs !== 'engine') return spec.run(call);
  const run = spec.run;
  const options = { ...spec.engine?.(flags, io.env, tools), json: flags.json };
  return tools.withEngine(opened.root.path, io, options, (engine) => Promise.resolve(run({ ...call, opened, engine })));
}

function operandValues<O extends readonly Operand[]>(spec: CommandSpecBase<O, CommandOptions>, positionals: readonly string[]): OperandValues<O> {
  // An extra word is refused, never dropped: `send --target x hello world` would otherwise send "hello".
  if (positionals.length > spec.operands.length) {
    const takes = spec.operands.length === 0 ? 'no arguments' : spec.operands.map((operand) => operand.name).join(' ');
    throw usageError(`${spec.name} takes ${takes}, got ${positionals.length}: ${positionals.map((word) => JSON.stringify(word)).join(' ')}`, 'quote an argument that has spaces');
  }
  const values: Record<string, string | undefined> = {};
  spec.operands.forEach((operand, index) => {
    const value = positionals[index];
    if (value === undefined && operand.needs !== undefined) throw usageError(`${spec.name} needs ${operand.needs}`);
    values[operand.name] = value;
  });
  // Each required operand was checked above, so the record is what the type says.
  return values as OperandValues<O>;
}

function flagValues<P extends CommandOptions>(spec: CommandSpecBase<readonly Operand[], P>, flags: ParsedFlags): FlagValues<P> {
  const values: Record<string, unknown> = { ...flags };
  for (const [name, option] of Object.entries(OPTIONS)) if (option.value === 'flag') values[name] ??= false;
  for (const [name, option] of Object.entries(spec.options)) {
    if (option?.required === true && values[name] === undefined && isOptionName(name)) throw usageError(`${spec.name} needs ${optionSyntax(name)}`);
  }
  // Flags not given are false, and required ones were checked above, so the record is what the type says.
  return values as FlagValues<P>;
}
