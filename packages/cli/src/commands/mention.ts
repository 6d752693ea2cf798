import { formatSessionReferenceMention, labelOf } from '@sessref/core';
import type { Engine } from '../engine/engine.js';
import { terminalSafe, writeJson, writeLine, type Io } from '../output.js';

/** `sessref mention ID [--label L]`: the label defaults to the session's title. */
export async function mentionCommand(engine: Engine | undefined, io: Io, options: { id: string; label: string | undefined; json: boolean }): Promise<void> {
  const label = options.label ?? labelOf(options.id, await engine?.titleOf(options.id));
  const mention = formatSessionReferenceMention({ sessionId: options.id, label });
  if (options.json) return writeJson(io.stdout, { sessionId: options.id, label, mention });
  writeLine(io.stdout, terminalSafe(mention));
}
