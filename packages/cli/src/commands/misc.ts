import { decodeSessionReferenceUri, encodeSessionReferenceUri, formatSessionReferenceMention } from '@sessref/core';
import type { Engine } from '../engine/engine.js';
import { terminalSafe, writeJson, writeLine, type Io } from '../output.js';
import { usageError } from '../errors.js';

/** `sessref new [--cwd DIR] [--title T]` */
export async function newCommand(engine: Engine, io: Io, options: { cwd: string | undefined; title: string | undefined; json: boolean }): Promise<void> {
  if (options.cwd !== undefined && !options.cwd.startsWith('/')) throw usageError(`--cwd must be an absolute path, got "${options.cwd}"`);
  const id = await engine.create(options);
  if (options.json) return writeJson(io.stdout, { sessionId: id });
  writeLine(io.stdout, terminalSafe(id));
}

/** `sessref uri encode ID` / `sessref uri decode URI` */
export function uriCommand(io: Io, options: { action: string; value: string; json: boolean }): void {
  let result: string;
  if (options.action === 'encode') result = encodeSessionReferenceUri(options.value);
  else if (options.action === 'decode') result = decodeSessionReferenceUri(options.value);
  else throw usageError(`unknown uri action "${options.action}"; use encode or decode`);
  if (options.json) return writeJson(io.stdout, { [options.action === 'encode' ? 'uri' : 'sessionId']: result });
  writeLine(io.stdout, terminalSafe(result));
}

/** `sessref mention ID [--label L]`: the label defaults to the session's title. */
export async function mentionCommand(engine: Engine | undefined, io: Io, options: { id: string; label: string | undefined; json: boolean }): Promise<void> {
  const label = options.label ?? (engine ? ((await engine.show(options.id)).title ?? options.id) : options.id);
  const mention = formatSessionReferenceMention({ sessionId: options.id, label });
  if (options.json) return writeJson(io.stdout, { sessionId: options.id, label, mention });
  writeLine(io.stdout, terminalSafe(mention));
}
