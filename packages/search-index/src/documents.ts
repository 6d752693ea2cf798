import { MAX_SNIPPET_LENGTH, projectMessage, redactSecrets, type SurfaceMessage, type SurfaceSnapshot, type TextRange } from '@sessref/core';
import { nodeZlib } from '@sessref/platform';
import { formTokens, isUnspaced, mappedForm, runsOf, searchForm } from './form.js';

/** A message a snapshot carries, as the index keeps it. */
export interface CarriedMessage {
  /** Its position in the surface's messages. */
  index: number;
  /** Its raw-log seq, when the source's surface messages carry one (a dsh surface can). */
  seq: number | undefined;
  role: 'user' | 'assistant';
  checkpoint: boolean;
  /** The projected text as a redacting snapshot carries it: no credential is indexed, found or shown in a snippet. */
  text: string;
}

/** One session as the index stores it. */
export interface SessionDocument {
  createdAt: number;
  /** The directory the session started in (its header's), which a hit names. */
  cwd: string | undefined;
  messages: CarriedMessage[];
  /** The full-text document: every message's tokens, messages kept apart by {@link MESSAGE_BREAK}. */
  tokens: string;
  /** The words of its spaced-script runs, for the vocabulary. */
  words: Set<string>;
  /** UTF-8 bytes of the carried text. */
  carriedBytes: number;
}

/**
 * Put between two messages' tokens: a token no query can contain (it is
 * punctuation, which a search form never keeps), so no phrase matches
 * across the end of one message and the start of the next.
 */
const MESSAGE_BREAK = ' ¶ ';

/**
 * The document of a surface: only what the core's projection carries is ever
 * indexed, with credentials redacted whatever the host's redaction setting,
 * so the index file never holds one and no snippet shows one.
 */
export function documentOf(surface: SurfaceSnapshot): SessionDocument {
  const messages = surface.messages.flatMap((message, index) => carried(message, index) ?? []);
  const words = new Set<string>();
  const tokens: string[] = [];
  let carriedBytes = 0;
  for (const message of messages) {
    const form = searchForm(message.text);
    for (const run of runsOf(form)) if (!isUnspaced(run)) words.add(run);
    tokens.push(formTokens(form).join(' '));
    carriedBytes += Buffer.byteLength(message.text);
  }
  return { createdAt: surface.session.createdAt, cwd: surface.session.cwd, messages, tokens: tokens.join(MESSAGE_BREAK), words, carriedBytes };
}

function carried(message: SurfaceMessage, index: number): CarriedMessage | undefined {
  const item = projectMessage(message);
  if (item === undefined) return undefined;
  return { index, seq: message.seq, role: item.role, checkpoint: item.checkpoint, text: redactSecrets(item.text).text };
}

type StoredMessage = [index: number, seq: number | null, kind: 0 | 1 | 2, text: string];

/** The carried messages, deflated: an index smaller than the text it indexes. */
export function encodeMessages(messages: readonly CarriedMessage[]): Uint8Array {
  const stored = messages.map(({ index, seq, role, checkpoint, text }): StoredMessage => [index, seq ?? null, checkpoint ? 2 : role === 'assistant' ? 1 : 0, text]);
  return nodeZlib().deflateRawSync(JSON.stringify(stored));
}

/** Where a query's form occurs in a session: the first carried message that has it, and every occurrence there. */
export interface Located {
  message: CarriedMessage;
  /** Offsets into the message's projected text, non-overlapping, in order. */
  ranges: TextRange[];
}

/**
 * The first message of a stored blob (in surface order) whose search form
 * contains `form`, with its occurrences mapped back to the projected text.
 * Only that message is made into a {@link CarriedMessage}: a hit reads one
 * message of a session's blob, and a fresh process decodes tens of blobs.
 * @throws when the blob is not what {@link encodeMessages} writes: every stored message is checked, the matching one or not (a damaged row is never trusted).
 */
export function locateStored(blob: Uint8Array, form: string): Located | undefined {
  const stored: unknown = JSON.parse(nodeZlib().inflateRawSync(blob).toString('utf8'));
  if (!Array.isArray(stored) || !stored.every(isStoredMessage)) throw new Error('the stored messages are malformed');
  for (let at = 0; at < stored.length; at++) {
    const entry = stored[at]!;
    // The plain form first: mapping offsets costs more, and most messages do not match.
    if (searchForm(entry[3]).includes(form)) return { message: carriedOf(entry), ranges: rangesOf(entry[3], form) };
  }
  return undefined;
}

function isStoredMessage(entry: unknown): entry is StoredMessage {
  if (!Array.isArray(entry) || entry.length !== 4) return false;
  // Indexed, not destructured: destructuring goes through the iterator protocol, which a fresh process runs cold.
  const seq: unknown = entry[1];
  const kind: unknown = entry[2];
  return Number.isSafeInteger(entry[0]) && (seq === null || typeof seq === 'number') && (kind === 0 || kind === 1 || kind === 2) && typeof entry[3] === 'string';
}

function carriedOf(entry: StoredMessage): CarriedMessage {
  const kind = entry[2];
  return { index: entry[0], seq: entry[1] ?? undefined, role: kind === 1 ? 'assistant' : 'user', checkpoint: kind === 2, text: entry[3] };
}

/** Every occurrence of `form` in the search form of `text`, as offsets into `text`. */
function rangesOf(text: string, form: string): TextRange[] {
  const mapped = mappedForm(text);
  const ranges: TextRange[] = [];
  for (let at = mapped.text.indexOf(form); at !== -1; at = mapped.text.indexOf(form, at + form.length)) {
    ranges.push([mapped.starts[at]!, mapped.ends[at + form.length - 1]!]);
  }
  return ranges;
}

/** An excerpt of a message's projected text. */
export interface Snippet {
  text: string;
  /** Where `text` starts in the projected text (subtract it from a range to place the range in `text`). */
  offset: number;
  /** The length of the whole projected text: `text` is cut at its end when `offset + text.length` is less. */
  messageLength: number;
}

/** Longest snippet, in UTF-16 code units: room for a `…` at each cut side within a content hit's bound. */
const SNIPPET_LENGTH = MAX_SNIPPET_LENGTH - 2;

/** The excerpt of `text` around `range`, the match centred when the text is longer than a snippet; never splits a surrogate pair. */
export function snippetAround(text: string, range: TextRange): Snippet {
  const room = Math.max(0, SNIPPET_LENGTH - (range[1] - range[0]));
  let start = Math.max(0, Math.min(range[0] - Math.floor(room / 2), text.length - SNIPPET_LENGTH));
  let end = Math.min(text.length, Math.max(range[1], start + SNIPPET_LENGTH));
  if (start > 0 && isLowSurrogate(text, start)) start -= 1;
  if (isLowSurrogate(text, end)) end += 1;
  return { text: text.slice(start, end), offset: start, messageLength: text.length };
}

function isLowSurrogate(text: string, at: number): boolean {
  const unit = text.charCodeAt(at);
  return unit >= 0xdc00 && unit <= 0xdfff;
}
