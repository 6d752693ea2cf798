import type { Engine } from '../engine/engine.js';
import { usageError } from '../failure.js';
import { terminalSafe, writeJson, writeLine, type Io } from '../output.js';

/** `sessref new [--cwd DIR] [--title T]` */
export async function newCommand(engine: Engine, io: Io, options: { cwd: string | undefined; title: string | undefined; json: boolean }): Promise<void> {
  if (options.cwd !== undefined && !options.cwd.startsWith('/')) throw usageError(`--cwd must be an absolute path, got "${options.cwd}"`);
  const id = await engine.create(options);
  if (options.json) return writeJson(io.stdout, { sessionId: id });
  writeLine(io.stdout, terminalSafe(id));
}
