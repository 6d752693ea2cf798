import { checkExcerptRequest, formatExcerptSuffix, formatSessionReferenceMention, labelOf, normalizeContentQuery } from '@sessref/core';
import type { Engine } from '../engine/engine.js';
import { terminalSafe, writeJson, writeLine, type Io } from '../output.js';

/**
 * `sessref mention ID [--label L] [--around PHRASE]`: the label defaults to
 * the session's title; `--around` adds the suffix that cites the part of the
 * session around PHRASE (checked as the core checks a phrase).
 */
export async function mentionCommand(
  engine: Engine | undefined,
  io: Io,
  options: { id: string; label: string | undefined; json: boolean; around?: string | undefined },
): Promise<void> {
  const suffix = options.around === undefined ? '' : excerptSuffix(options.around);
  const label = options.label ?? labelOf(options.id, await engine?.titleOf(options.id));
  const mention = formatSessionReferenceMention({ sessionId: options.id, label }) + suffix;
  if (options.json) return writeJson(io.stdout, { sessionId: options.id, label, mention });
  writeLine(io.stdout, terminalSafe(mention));
}

/** The suffix of an excerpt around `phrase`, its whitespace as the core matches it; a phrase the core would refuse is refused here, before it is sent. */
function excerptSuffix(phrase: string): string {
  const request = { around: phrase };
  checkExcerptRequest(request);
  return formatExcerptSuffix({ around: normalizeContentQuery(phrase) });
}
