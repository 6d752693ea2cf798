/**
 * Chat habits meet canonical mentions. People type `@flaky-ci` or `@Fix flaky
 * CI` as they would in a chat; only `@[label](dsh-session:…)` (or a bare
 * canonical URI) cites a session, so such text reaches the model as written,
 * with no snapshot. sessref never guesses a reference from it. It says so,
 * naming the sessions the text matches and the exact command that prints
 * their mention.
 */
import type { Engine } from '../engine/engine.js';
import { styleFor, terminalSafe, writeLine, type Io } from '../output.js';

/** One `@text` that is no mention, and the sessions it matches. */
export interface PlainMentionHint {
  /** The text as typed, from its `@` through the part that matched. */
  text: string;
  sessions: { sessionId: string; label: string; command: string }[];
}

interface Labeled {
  sessionId: string;
  label: string;
}

/** Canonical mentions and bare URIs, blanked out before looking for plain `@text`. */
const CANONICAL = /@\[(?:\\.|[^\\\]])*\]\(dsh-session:[^)\s]*\)|dsh-session:[A-Za-z0-9_-]*/g;
/** An `@` that starts a word (not an e-mail address), not followed by `[`. */
const PLAIN_AT = /(?<![\p{L}\p{N}_.+-])@(?!\[)(?=[\p{L}\p{N}_])/gu;
const WORD_CHAR = /[\p{L}\p{N}_-]/u;

/**
 * The plain `@text` spans of `message` that name a session: its exact id
 * (case-insensitive, up to a word boundary), or at least the first two words
 * of its label (the whole label when it is one word). Each span lists the
 * sessions with the longest match, in `sessions` order.
 */
export function findPlainMentions(message: string, sessions: readonly Labeled[]): PlainMentionHint[] {
  const text = message.replace(CANONICAL, (match) => ' '.repeat(match.length));
  const hints: PlainMentionHint[] = [];
  for (const at of text.matchAll(PLAIN_AT)) {
    const rest = text.slice(at.index + 1).split(/[\r\n]/, 1)[0]!;
    let best = 0;
    let matched: Labeled[] = [];
    for (const session of sessions) {
      const length = Math.max(idMatch(rest, session.sessionId), labelMatch(rest, session.label));
      if (length === 0 || length < best) continue;
      if (length > best) matched = [];
      best = length;
      matched.push(session);
    }
    if (matched.length === 0) continue;
    hints.push({
      text: `@${message.slice(at.index + 1, at.index + 1 + best)}`,
      sessions: matched.map(({ sessionId, label }) => ({ sessionId, label, command: `sessref mention ${shellWord(sessionId)}` })),
    });
  }
  return hints;
}

/** Characters of `rest` that spell `id`, when it is followed by a word boundary; else 0. */
function idMatch(rest: string, id: string): number {
  if (rest.length < id.length || rest.slice(0, id.length).toLowerCase() !== id.toLowerCase()) return 0;
  const next = rest[id.length];
  return next !== undefined && WORD_CHAR.test(next) ? 0 : id.length;
}

/** Characters of `rest` that spell the label's first words (two at least, or all of a one-word label); else 0. */
function labelMatch(rest: string, label: string): number {
  const words = label.split(/\s+/).filter(Boolean);
  const needed = Math.min(2, words.length);
  let at = 0;
  let end = 0;
  let count = 0;
  for (const word of words) {
    while (rest[at] === ' ' || rest[at] === '\t') at++;
    const typed = rest.slice(at, at + word.length);
    const next = rest[at + word.length];
    if (typed.toLowerCase() !== word.toLowerCase() || (next !== undefined && WORD_CHAR.test(next))) break;
    at += word.length;
    end = at;
    count++;
  }
  return count >= needed && count > 0 ? end : 0;
}

/** An id as one shell word: bare when it is plain, else single-quoted. */
/** `value` as one shell word: as it is when it needs no quoting, else single-quoted. */
export function shellWord(value: string): string {
  return /^[A-Za-z0-9._@%+=:,/-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

/** The one line a hint is printed as. */
function formatPlainMentionHint(hint: PlainMentionHint): string {
  const head = `"${hint.text}" is plain text, not a session reference: the model gets it as written, with no snapshot.`;
  if (hint.sessions.length === 1) {
    const [session] = hint.sessions;
    return `${head} To cite ${named(session!)}, put its mention in the message: ${session!.command}`;
  }
  return `${head} It matches ${hint.sessions.length} sessions; to cite one, put its mention in the message: ${hint.sessions
    .map((session) => `${named(session)}: ${session.command}`)
    .join('; ')}`;
}

function named(session: Labeled): string {
  return session.label === session.sessionId ? session.sessionId : `${session.label} (${session.sessionId})`;
}

/**
 * Print a hint on stderr for each plain `@text` in `message` that names a
 * session other than `target` (a JSON object under `--json`). Reads only the
 * candidate list, and only when the message has such text.
 */
export async function printPlainMentionHints(engine: Engine, io: Io, options: { target: string; message: string; json: boolean }): Promise<void> {
  if (!new RegExp(PLAIN_AT.source, 'u').test(options.message.replace(CANONICAL, ''))) return;
  const candidates = await engine.candidates(options.target, '', Number.MAX_SAFE_INTEGER);
  const style = styleFor(io.stderr, io.env);
  for (const hint of findPlainMentions(options.message, candidates)) {
    if (options.json) writeLine(io.stderr, JSON.stringify({ hint: { code: 'PLAIN_MENTION', ...hint, message: formatPlainMentionHint(hint) } }));
    else writeLine(io.stderr, `${style.cyan('hint')} ${terminalSafe(formatPlainMentionHint(hint))}`);
  }
}
