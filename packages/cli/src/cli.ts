import type { Command, ParsedFlags } from './commands/command.js';
import { parseCommandLine } from './commands/parse.js';
import { CliError } from './failure.js';
import { commandHelp, mainHelp } from './help.js';
import { styleFor, writeJson, writeLine, type Io } from './output.js';
import { packageVersion } from './version.js';

// What `--version`, `--help`, `uri` and a command line that parses need is loaded above; the
// dsh host, the sources and the error classifier load with the command that uses them.

// The process's own outputs, for the bin: one module every command loads holds them too.
export { allFlushed, standardOutput } from './stdio.js';

/** Run one command line; resolves to the process exit code. */
export async function main(argv: string[], io: Io): Promise<number> {
  // Before the line is parsed, a failure to parse it is reported as these flags ask.
  let debug = argv.includes('--debug');
  let json = argv.includes('--json');
  let subject: string | undefined;
  try {
    const { command, operands, flags } = parseCommandLine(argv);
    debug = flags.debug === true;
    json = flags.json === true;
    if (flags.version === true) {
      if (json) writeJson(io.stdout, { version: packageVersion() });
      else writeLine(io.stdout, `sessref ${packageVersion()}`);
      return 0;
    }
    if (command === undefined) {
      writeLine(io.stdout, `${mainHelp()}\n${await helpRoot(undefined, flags, io)}`);
      // A bare `sessref` is a usage error that shows the help; `sessref --help` is not.
      return flags.help === true ? 0 : 1;
    }
    if (flags.help === true) {
      writeLine(io.stdout, `${commandHelp(command)}\n${await helpRoot(command, flags, io)}`);
      return 0;
    }
    // The session the command is about, named in its errors: --target, else its ID operand.
    subject = flags.target ?? (command.operands[0]?.name === 'ID' ? operands[0] : undefined);
    await command.run(operands, flags, io);
    return 0;
  } catch (thrown) {
    return reportFailure(io, thrown, { subject, debug, json });
  }
}

/** The help's last line: the root a command would use now, and why (for `seed`, the root it would write, never dsh's). */
async function helpRoot(command: Command | undefined, flags: ParsedFlags, io: Io): Promise<string> {
  const { resolveRoot } = await import('./root.js');
  try {
    const root = resolveRoot(flags.root, io.env, { dsh: command?.seedsDemo?.(flags) !== true });
    return `Session root: ${root.path} (${root.reason})`;
  } catch (error) {
    const { describeFailure } = await import('./errors.js');
    return `Session root: none (${describeFailure(error).message})`;
  }
}

/** Where the failure began: the error a refusal of sessref's own wraps, else the error itself. */
function stackOf(thrown: unknown): string {
  const origin = thrown instanceof CliError && thrown.cause instanceof Error ? thrown.cause : thrown;
  return (origin instanceof Error ? origin.stack : undefined) ?? String(thrown);
}

/**
 * One line on stderr: `error CODE: message (fix: hint)`, or under `--json`
 * the same facts as one JSON object; resolves to the exit code. The
 * classifier, which knows every layer's errors, loads with the failure.
 */
async function reportFailure(io: Io, thrown: unknown, options: { subject: string | undefined; debug: boolean; json: boolean }): Promise<number> {
  const { describeFailure, formatError } = await import('./errors.js');
  const report = describeFailure(thrown, options.subject);
  const stack = options.debug ? stackOf(thrown) : undefined;
  if (options.json) {
    const body = { code: report.code, message: report.message, ...(report.hint === undefined ? {} : { hint: report.hint }), exitCode: report.exitCode };
    writeLine(io.stderr, JSON.stringify({ error: stack === undefined ? body : { ...body, stack } }));
  } else {
    writeLine(io.stderr, formatError(report, styleFor(io.stderr, io.env)));
    if (stack !== undefined) writeLine(io.stderr, stack);
  }
  return report.exitCode;
}
