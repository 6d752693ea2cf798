import { stepSources, type Engine, type StepPreview } from '../engine/engine.js';
import { TITLE_COLUMNS, cut, formatBytes, styleFor, terminalSafe, writeJson, writeLine, type Io } from '../output.js';
import { printPlainMentionHints } from './hints.js';
import { refuseForeignTarget, refuseRemoteTarget } from './target.js';

/** A previewed step, or a sent one with the seqs it was appended at. */
type StepResult = StepPreview & { appendedSeqs?: number[] };

/** `sessref prepare --target ID MESSAGE` and `sessref send --target ID MESSAGE`. */
export async function stepCommand(
  engine: Engine,
  io: Io,
  options: { target: string; message: string; json: boolean; send: boolean },
): Promise<void> {
  if (options.send) refuseRemoteTarget(engine, options.target);
  else refuseForeignTarget(engine, options.target, 'prepare');
  const result: StepResult = options.send ? await engine.send(options.target, options.message) : await engine.preview(options.target, options.message);
  // `@flaky-ci` as typed in a chat cites nothing; say which sessions it matches and how to cite one.
  await printPlainMentionHints(engine, io, { target: options.target, message: options.message, json: options.json });
  if (options.json) return writeJson(io.stdout, stepJson(result));
  const sources = stepSources(result);
  const style = styleFor(io.stdout, io.env);
  result.messages.forEach(({ message }, index) => {
    const kind = message.source.kind === 'session-reference' ? 'snapshot (context)' : 'readable message';
    writeLine(io.stdout, style.bold(`── message ${index + 1}: user, ${kind} ──`));
    for (const block of message.content) if (block.type === 'text') writeLine(io.stdout, block.text);
    writeLine(io.stdout);
  });
  for (const { entry: reference, bytes } of sources) {
    writeLine(
      io.stdout,
      `${style.cyan(cut(reference.label, TITLE_COLUMNS))} (${terminalSafe(reference.sessionId)}) seq ≤ ${reference.capturedThroughSeq}: ` +
        `${formatBytes(bytes)} of ${formatBytes(result.maxReferenceBytes)}, ` +
        `${reference.retainedMessages}/${reference.originalMessages} messages kept, ${reference.omittedMessages} dropped, ` +
        `${formatBytes(reference.omittedBytes)} omitted${reference.truncated ? ', truncated' : ''}${reference.compacted ? ', compacted' : ''}` +
        (reference.excerpt === undefined ? '' : `, excerpt of messages ${reference.excerpt.firstMessage}–${reference.excerpt.lastMessage}`) +
        (reference.redactedValues === undefined ? '' : `, ${reference.redactedValues} credential${reference.redactedValues === 1 ? '' : 's'} redacted`),
    );
  }
  if (sources.length === 0) writeLine(io.stdout, style.dim('no session references in this message'));
  if (result.appendedSeqs !== undefined) writeLine(io.stdout, style.green(`appended to ${result.target} at seq ${result.appendedSeqs.join(', ')}`));
}

/** The documented `--json` shape: the messages as they would enter history, each source's entry and its budgeted size. */
function stepJson(result: StepResult) {
  const sources = stepSources(result);
  return {
    target: result.target,
    messages: result.messages.map(({ message }) => message),
    references: sources.map((source) => source.entry),
    sourceBytes: sources.map((source) => source.bytes),
    maxReferenceBytes: result.maxReferenceBytes,
    ...(result.appendedSeqs === undefined ? {} : { appendedSeqs: result.appendedSeqs }),
  };
}
