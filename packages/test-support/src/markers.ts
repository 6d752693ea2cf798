/**
 * The content-search marker corpus the dsh and CLI suites share: one made-up
 * word per place a session holds text, which of those places a snapshot
 * carries (so content search finds the word) and which it never does, and
 * the writers that put each word in its place through the real session
 * writer. A suite lays out its own sessions from these, so that which words
 * exist and where each may be found are decided once.
 */
import type { Session } from '@deepseek-ai/dsh-session';
import { appendAssistant, appendExchange, appendInjected, appendToolResult, appendUser, compact, endTurn } from '@sessref/host';

/** One word per place; none is an English word, so a hit can only come from that place. */
export const MARKERS = {
  /** Direct user text: carried. */
  userText: 'zebracrossing',
  /** Assistant text: carried. */
  assistantText: 'quokkafactor',
  /** A compaction's summary, the checkpoint: carried. */
  checkpoint: 'narwhalplan',
  reasoning: 'reasonmarker',
  toolArguments: 'argumentmarker',
  toolOutput: 'tooloutputmarker',
  injected: 'injectmarker',
  /** Text before a compaction, which the checkpoint replaces. */
  shadowed: 'shadowmarker',
  /** Text inside a referenced snapshot: found only in the session it was taken from. */
  referencedSnapshot: 'snapmarker',
} as const;

/** The places a snapshot never carries, with what each is: a content search never finds their word. */
export const UNCARRIED_MARKERS: readonly (readonly [what: string, word: string])[] = [
  ['tool output', MARKERS.toolOutput],
  ['reasoning', MARKERS.reasoning],
  ['tool call arguments', MARKERS.toolArguments],
  ['injected context', MARKERS.injected],
  ['shadowed pre-compaction text', MARKERS.shadowed],
];

/**
 * One turn whose reasoning, tool call arguments and tool output each hold
 * their marker; `user` and `assistant` are the direct texts around them.
 */
export function appendToolTurn(session: Session, texts: { user: string; assistant: string }): void {
  appendUser(session, texts.user);
  const { callIds } = appendAssistant(session, {
    reasoning: `Thinking about ${MARKERS.reasoning} first.`,
    text: texts.assistant,
    toolCalls: [{ name: 'grep', arguments: { pattern: MARKERS.toolArguments } }],
  });
  appendToolResult(session, callIds[0]!, `${MARKERS.toolOutput}: 3 matches`);
  endTurn(session);
}

/** Injected context (a plugin's note) holding its marker. */
export function appendInjectedNote(session: Session): void {
  appendInjected(session, `Reminder: ${MARKERS.injected} is a plugin note.`);
}

/** A turn holding the shadowed marker, a compaction whose checkpoint holds its own, and a turn after it. */
export function appendCompactedTurns(session: Session): void {
  appendExchange(session, { user: `The ${MARKERS.shadowed} plan was wrong.`, assistant: `Noted, ${MARKERS.shadowed} dropped.` });
  compact(session, `Summary: we agreed on the ${MARKERS.checkpoint} instead.`);
  appendExchange(session, { user: 'Continue after the checkpoint.', assistant: 'Continuing.' });
}
