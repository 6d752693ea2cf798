import type { Engine } from '../engine/engine.js';
import { formatBytes, styleFor, terminalSafe, writeJson, writeLine, type Io } from '../output.js';
import { printPlainMentionHints } from './hints.js';

/** `sessref prepare --target ID MESSAGE` and `sessref send --target ID MESSAGE`. */
export async function stepCommand(
  engine: Engine,
  io: Io,
  options: { target: string; message: string; json: boolean; send: boolean },
): Promise<void> {
  const result = options.send ? await engine.send(options.target, options.message) : await engine.preview(options.target, options.message);
  // `@flaky-ci` as typed in a chat cites nothing; say which sessions it matches and how to cite one.
  await printPlainMentionHints(engine, io, { target: options.target, message: options.message, json: options.json });
  if (options.json) return writeJson(io.stdout, result);
  const style = styleFor(io.stdout, io.env);
  result.messages.forEach((message, index) => {
    const kind = message.source.kind === 'session-reference' ? 'snapshot (context)' : 'readable message';
    writeLine(io.stdout, style.bold(`── message ${index + 1}: user, ${kind} ──`));
    for (const block of message.content) if (block.type === 'text') writeLine(io.stdout, block.text);
    writeLine(io.stdout);
  });
  for (const [index, reference] of result.references.entries()) {
    writeLine(
      io.stdout,
      `${style.cyan(reference.label)} (${terminalSafe(reference.sessionId)}) seq ≤ ${reference.capturedThroughSeq}: ` +
        `${formatBytes(result.sourceBytes[index] ?? 0)} of ${formatBytes(result.maxReferenceBytes)}, ` +
        `${reference.retainedMessages}/${reference.originalMessages} messages kept, ${reference.omittedMessages} dropped, ` +
        `${formatBytes(reference.omittedBytes)} omitted${reference.truncated ? ', truncated' : ''}${reference.compacted ? ', compacted' : ''}`,
    );
  }
  if (result.references.length === 0) writeLine(io.stdout, style.dim('no session references in this message'));
  if ('appendedSeqs' in result) {
    writeLine(io.stdout, style.green(`appended to ${result.target} at seq ${(result as { appendedSeqs: number[] }).appendedSeqs.join(', ')}`));
  }
}
