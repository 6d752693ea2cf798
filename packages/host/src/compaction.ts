/**
 * Compaction as a real `CompactionEngine` backend commits it, for the session
 * writer (see writer.ts): the bracket, the log-only summary record and the one
 * checkpoint message that replaces the span.
 */
import { randomUUID } from 'node:crypto';
import { CompactionId, compactCheckpointSource, toolPairingBalancedAfter, toolPairingBalancedBefore } from '@deepseek-ai/dsh-compaction';
import { createUserMessage, type ContentBlock } from '@deepseek-ai/dsh-llm';
import type { Session, SessionEvent } from '@deepseek-ai/dsh-session';
import { logPosition } from './writer.js';

/** Options for {@link compact}. */
export interface CompactOptions {
  /** Trailing current surface nodes kept verbatim (default 0: everything before the checkpoint). */
  retain?: number;
  /** Transaction id (default random UUID). */
  compactionId?: string;
  /**
   * Wrap the summary in the block shape `dsh-compaction-basic` uses (default `true`):
   * `[preamble + "\n\n<compacted-summary>", summary, "</compacted-summary>"]`.
   * `false` stores the summary as a single text block.
   */
  framed?: boolean;
  /** The summarizer recorded in `compaction/summary` (default `harness` / `harness-summarizer`). */
  summarizer?: { provider: string; model: string };
}

/** Result of {@link compact}. */
export interface CompactResult {
  compactionId: string;
  startSeq: number;
  summarySeq: number;
  checkpoint: SessionEvent<'user/message'>;
  endSeq: number;
  shadowedSeqs: number[];
}

/**
 * Checkpoint framing in the shape `dsh-compaction-basic` writes (a preamble
 * block ending with the opening tag, the summary, the closing tag); the
 * preamble wording here is the harness's own.
 */
const CHECKPOINT_PREAMBLE =
  'Harness checkpoint: the span of conversation before this point was condensed into the summary below. Treat it as established background.';
const SUMMARY_OPEN_TAG = '<compacted-summary>';
const SUMMARY_CLOSE_TAG = '</compacted-summary>';

/** Heuristic token price (UTF-8 bytes / 4) used for `shadowedTokenCount`. */
function heuristicTokens(events: readonly SessionEvent[]): number {
  const bytes = events.reduce((total, event) => total + Buffer.byteLength(JSON.stringify(event.data)), 0);
  return Math.ceil(bytes / 4);
}

/**
 * Compact the current surface the way a real `CompactionEngine` backend
 * commits a summary: `compaction/start` (the lock), `compaction/summary`
 * (log-only record), ONE replacement `user/message` whose source is
 * `compactCheckpointSource(compactionId)` with
 * `surfaceOp: { op: 'replace', start, end }` and
 * `sourceEventSeqs: [startSeq, summarySeq, ...shadowedSeqs]`, then
 * `compaction/end`. Between turns the bracket is a standalone manual one
 * (`turn: null`); inside an open turn it is owned by that turn.
 * The span starts at the first current node and ends before the retained
 * tail, moved earlier until no tool call/result pair is split.
 * @param session - session to compact; must have no open step.
 * @param summary - summary text written by the (template) summarizer.
 * @param options - retained tail, id and framing.
 * @returns the appended seqs and the checkpoint event.
 */
export function compact(session: Session, summary: string, options: CompactOptions = {}): CompactResult {
  const position = logPosition(session);
  if (position.openStep !== undefined) throw new Error('compact: close the open step first');
  const nodes = session.surface.nodes;
  let keepFrom = nodes.length - (options.retain ?? 0);
  while (keepFrom > 0 && keepFrom < nodes.length && !toolPairingBalancedBefore(session, nodes[keepFrom] as number)) {
    keepFrom -= 1;
  }
  if (keepFrom <= 0) throw new Error('compact: no compactable surface span');
  const shadowedSeqs = nodes.slice(0, keepFrom);
  const start = shadowedSeqs[0] as number;
  const end = shadowedSeqs[shadowedSeqs.length - 1] as number;
  if (!toolPairingBalancedBefore(session, start) || !toolPairingBalancedAfter(session, end)) {
    throw new Error('compact: span would split a tool call/result pair');
  }

  const compactionId = CompactionId(options.compactionId ?? randomUUID());
  const lifecycle = { compactionId, turn: position.openTurn ?? null };
  const summaryBlocks: ContentBlock[] = [{ type: 'text', text: summary }];
  const events = session.events;
  const startEvent = session.append('compaction/start', lifecycle);
  const summaryEvent = session.append('compaction/summary', {
    compactionId,
    summary: summaryBlocks,
    shadowedRange: { start, end },
    shadowedSeqs: [...shadowedSeqs],
    shadowedTokenCount: heuristicTokens(shadowedSeqs.map((seq) => events[seq] as SessionEvent)),
    ...(options.summarizer ?? { provider: 'harness', model: 'harness-summarizer' }),
  });
  const content: ContentBlock[] = options.framed === false
    ? summaryBlocks
    : [
        { type: 'text', text: `${CHECKPOINT_PREAMBLE}\n\n${SUMMARY_OPEN_TAG}` },
        ...summaryBlocks,
        { type: 'text', text: SUMMARY_CLOSE_TAG },
      ];
  const checkpoint = session.append(
    'user/message',
    createUserMessage({ content, source: compactCheckpointSource(compactionId) }),
    { surfaceOp: { op: 'replace', start, end }, sourceEventSeqs: [startEvent.seq, summaryEvent.seq, ...shadowedSeqs] },
  );
  const endEvent = session.append('compaction/end', lifecycle);
  return {
    compactionId,
    startSeq: startEvent.seq,
    summarySeq: summaryEvent.seq,
    checkpoint,
    endSeq: endEvent.seq,
    shadowedSeqs: [...shadowedSeqs],
  };
}

