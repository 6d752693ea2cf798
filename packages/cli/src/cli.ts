import { readFileSync } from 'node:fs';
import type { Command, ParsedFlags } from './commands/command.js';
import { parseCommandLine } from './commands/parse.js';
import { describeFailure, formatError, type CliReport } from './errors.js';
import { CliError } from './failure.js';
import { commandHelp, mainHelp } from './help.js';
import { styleFor, writeJson, writeLine, type Io } from './output.js';
import { resolveRoot } from './root.js';

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
      if (json) writeJson(io.stdout, { version: version() });
      else writeLine(io.stdout, `sessref ${version()}`);
      return 0;
    }
    if (command === undefined) {
      writeLine(io.stdout, `${mainHelp()}\n${helpRoot(undefined, flags, io)}`);
      // A bare `sessref` is a usage error that shows the help; `sessref --help` is not.
      return flags.help === true ? 0 : 1;
    }
    if (flags.help === true) {
      writeLine(io.stdout, `${commandHelp(command)}\n${helpRoot(command, flags, io)}`);
      return 0;
    }
    // The session the command is about, named in its errors: --target, else its ID operand.
    subject = flags.target ?? (command.operands[0]?.name === 'ID' ? operands[0] : undefined);
    await command.run(operands, flags, io);
    return 0;
  } catch (thrown) {
    const report = describeFailure(thrown, subject);
    printReport(io, report, debug ? stackOf(thrown) : undefined, json);
    return report.exitCode;
  }
}

/** The CLI package's version, read from its package.json (one level above both src/ and dist/). */
function version(): string {
  const manifest: unknown = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  return (manifest as { version: string }).version;
}

/** The help's last line: the root a command would use now, and why (for `seed`, the root it would write, never dsh's). */
function helpRoot(command: Command | undefined, flags: ParsedFlags, io: Io): string {
  try {
    const root = resolveRoot(flags.root, io.env, { dsh: command?.seedsDemo?.(flags) !== true });
    return `Session root: ${root.path} (${root.reason})`;
  } catch (error) {
    return `Session root: none (${describeFailure(error).message})`;
  }
}

/** Where the failure began: the error a refusal of sessref's own wraps, else the error itself. */
function stackOf(thrown: unknown): string {
  const origin = thrown instanceof CliError && thrown.cause instanceof Error ? thrown.cause : thrown;
  return (origin instanceof Error ? origin.stack : undefined) ?? String(thrown);
}

/** One line on stderr: `error CODE: message (fix: hint)`, or under `--json` the same facts as one JSON object. */
function printReport(io: Io, report: CliReport, stack: string | undefined, json: boolean): void {
  if (json) {
    const body = { code: report.code, message: report.message, ...(report.hint === undefined ? {} : { hint: report.hint }), exitCode: report.exitCode };
    writeLine(io.stderr, JSON.stringify({ error: stack === undefined ? body : { ...body, stack } }));
    return;
  }
  writeLine(io.stderr, formatError(report, styleFor(io.stderr, io.env)));
  if (stack !== undefined) writeLine(io.stderr, stack);
}
