import { decodeBase64UrlInto, decodedLengthBound, encodeBase64Url } from './base64url.js';
import { SessionReferenceError } from './errors.js';
import { labelOf } from './label.js';
import type { ParsedSessionReferenceText, SessionReferenceInput } from './types.js';

/** URI scheme of a session reference. */
export const SESSION_REFERENCE_SCHEME = 'dsh-session:';

const utf8Encoder = new TextEncoder();
// Fatal and BOM-preserving, so decoding is one-to-one: no two payloads read as the same text.
const utf8Decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** `dsh-session:` + base64url(UTF-8(JSON.stringify(id))): every JavaScript string round-trips. */
export function encodeSessionReferenceUri(sessionId: string): string {
  if (typeof sessionId !== 'string') throw invalidUri(String(sessionId));
  return SESSION_REFERENCE_SCHEME + encodeBase64Url(encodeUtf8(JSON.stringify(sessionId)));
}

/** Decode a canonical URI; anything else is `SESSION_REFERENCE_INVALID_REFERENCE`. */
export function decodeSessionReferenceUri(uri: string): string {
  if (typeof uri !== 'string' || !uri.startsWith(SESSION_REFERENCE_SCHEME)) throw invalidUri(String(uri));
  return decodeUriAt(uri, 0, uri.length);
}

/** Decode the URI that spans `text[start, end)` and starts with the scheme. */
function decodeUriAt(text: string, start: number, end: number): string {
  const id = decodePayload(text, start + SESSION_REFERENCE_SCHEME.length, end);
  if (id === undefined) throw invalidUri(text.slice(start, end));
  return id;
}

/**
 * The id of a canonical URI, else `undefined`. Canonical means the id encodes
 * back to exactly `uri`; since base64url and UTF-8 decoding are both strict
 * here (one text per byte string, one byte string per payload), that holds
 * exactly when the decoded JSON text is the one `JSON.stringify` writes for
 * the id, and no re-encoding is needed to check it.
 */
function decodePayload(text: string, start: number, end: number): string | undefined {
  if (start === end) return undefined;
  const bytes = payloadBuffer(end - start);
  const length = decodeBase64UrlInto(text, start, end, bytes);
  if (length < 0) return undefined;
  const plain = plainJsonString(bytes, length);
  if (plain !== undefined) return plain;
  let json: string;
  let value: unknown;
  try {
    json = utf8Decoder.decode(bytes.subarray(0, length));
    value = JSON.parse(json);
  } catch {
    return undefined;
  }
  return typeof value === 'string' && JSON.stringify(value) === json ? value : undefined;
}

/**
 * One scratch buffer for every ordinary payload: decoding is synchronous, so
 * no two decodes overlap. A longer payload gets a buffer of its own, so one
 * huge URI does not keep a huge buffer alive.
 */
const scratch = new Uint8Array(1024);

function payloadBuffer(textLength: number): Uint8Array {
  const needed = decodedLengthBound(textLength);
  return needed <= scratch.length ? scratch : new Uint8Array(needed);
}

/**
 * The common case without JSON.parse: `"…"` around printable ASCII that
 * `JSON.stringify` writes as it is (no `"`, no `\`, no control character),
 * so the JSON text is canonical and the id is its inside. Else `undefined`.
 */
function plainJsonString(bytes: Uint8Array, length: number): string | undefined {
  const last = length - 1;
  if (last < 1 || bytes[0] !== QUOTE || bytes[last] !== QUOTE) return undefined;
  // A preallocated plain array: String.fromCharCode takes it fastest, faster than a typed array view.
  const codes = new Array<number>(last - 1);
  for (let i = 1; i < last; i++) {
    const byte = bytes[i]!;
    if (byte < 0x20 || byte >= 0x80 || byte === QUOTE || byte === BACKSLASH) return undefined;
    codes[i - 1] = byte;
  }
  return String.fromCharCode.apply(null, codes);
}

const QUOTE = 0x22;

/** UTF-8 bytes of `text`; ids are mostly ASCII, where a plain copy beats an encoder call. */
function encodeUtf8(text: string): Uint8Array {
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0x80) return utf8Encoder.encode(text);
    bytes[i] = code;
  }
  return bytes;
}

/** URIs longer than this are shortened in error messages: a message names the URI, it does not carry it. */
const MESSAGE_URI_CHARS = 100;

function invalidUri(uri: string): SessionReferenceError {
  const shown = uri.length <= MESSAGE_URI_CHARS ? `"${uri}"` : `"${uri.slice(0, MESSAGE_URI_CHARS)}…" (${uri.length} characters)`;
  return new SessionReferenceError(`invalid session reference URI ${shown}`, 'SESSION_REFERENCE_INVALID_REFERENCE');
}

/** `@[label](uri)`, the label defaulting to the id, with `\` and `]` escaped. */
export function formatSessionReferenceMention(reference: SessionReferenceInput): string {
  const label = labelOf(reference.sessionId, reference.label);
  return `@[${label.replace(/[\\\]]/g, '\\$&')}](${encodeSessionReferenceUri(reference.sessionId)})`;
}

/** The readable span a mention becomes in model-facing text. */
export function readableMention(label: string): string {
  return `@${label}`;
}

const AT = 0x40;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const BACKSLASH = 0x5c;
const OPEN_PAREN = 0x28;
const CLOSE_PAREN = 0x29;
/** A URI's run: everything up to a `)` or whitespace (`\s`, as a mention's URI ends at either). */
const URI_RUN = /[^)\s]*/y;

/**
 * Replace `@[label](dsh-session:…)` mentions and bare canonical URIs with
 * `@label`, returning the references in appearance order.
 *
 * One left-to-right pass. The two scans that could restart at every `@[` or
 * `](` (a label's closing bracket, a URI's closing parenthesis) are memoized,
 * because every start inside a span already scanned reaches the same end:
 * that keeps adversarial input such as `@[@[@[…` linear. `ends`, when
 * given, receives where each reference's mention (or bare URI) ends in
 * `text`, for a caller that reads what follows one (an excerpt request).
 */
export function parseSessionReferenceText(text: string, ends?: number[]): ParsedSessionReferenceText {
  const scanner = new MentionScanner(text);
  const references: SessionReferenceInput[] = [];
  let out = '';
  let copiedUpTo = 0;
  let i = 0;
  while (i < text.length) {
    const reference = scanner.matchAt(i);
    if (reference === undefined) {
      i = scanner.nextCandidate(i + 1);
      continue;
    }
    references.push(reference);
    ends?.push(scanner.matchEnd);
    out += text.slice(copiedUpTo, i) + readableMention(reference.label);
    copiedUpTo = i = scanner.matchEnd;
  }
  return { text: copiedUpTo === 0 ? text : out + text.slice(copiedUpTo), references };
}

/** A reference whose label is always known: the one written, or the id of a bare URI. */
interface LabeledReference extends SessionReferenceInput {
  label: string;
}

class MentionScanner {
  /**
   * Memo of the last label scan, which stopped at `labelStop`: the closing
   * `]` (`labelClose`), or where the label became impossible (-1). A label
   * starts right after `@[`, never inside an escape pair, so any later start
   * in [labelFrom, labelStop] walks the same pairs to the same stop.
   */
  private labelFrom = -1;
  private labelStop = -2;
  private labelClose = -1;
  /** Memo of the last URI scan: any start in [uriFrom, uriEnd) lies in the same run and stops at uriEnd. */
  private uriFrom = -1;
  private uriEnd = -1;

  /**
   * Memo of the last search for each pattern: a search from `from` that found
   * `found` (or nothing, for -1) answers every later start up to `found` (or
   * every later start), so a pattern that is far away or absent is not
   * searched for again at every candidate of the other one.
   */
  private readonly atSearch = { from: Infinity, found: -1 };
  private readonly bareSearch = { from: Infinity, found: -1 };

  /** Where the last match ended; a field, so that a match needs no result object besides its reference. */
  matchEnd = 0;

  constructor(private readonly text: string) {}

  /** Next index at or after `from` where a mention or bare URI could begin. */
  nextCandidate(from: number): number {
    const at = this.indexOf('@[', this.atSearch, from);
    const bare = this.indexOf(SESSION_REFERENCE_SCHEME, this.bareSearch, from);
    if (at < 0) return bare < 0 ? this.text.length : bare;
    return bare < 0 ? at : Math.min(at, bare);
  }

  private indexOf(pattern: string, memo: { from: number; found: number }, from: number): number {
    if (from >= memo.from && (memo.found < 0 || from <= memo.found)) return memo.found;
    memo.from = from;
    memo.found = this.text.indexOf(pattern, from);
    return memo.found;
  }

  /** The reference whose mention or bare URI starts at `i`, setting {@link matchEnd}; else `undefined`. */
  matchAt(i: number): LabeledReference | undefined {
    const code = this.text.charCodeAt(i);
    if (code === AT) return this.markdownAt(i);
    return this.text.startsWith(SESSION_REFERENCE_SCHEME, i) ? this.bareAt(i) : undefined;
  }

  private markdownAt(i: number): LabeledReference | undefined {
    const text = this.text;
    if (text.charCodeAt(i + 1) !== OPEN_BRACKET) return undefined;
    const close = this.labelCloseFrom(i + 2);
    if (close < 0 || text.charCodeAt(close + 1) !== OPEN_PAREN) return undefined;
    const uriStart = close + 2;
    if (!text.startsWith(SESSION_REFERENCE_SCHEME, uriStart)) return undefined;
    const uriEnd = this.uriEndFrom(uriStart + SESSION_REFERENCE_SCHEME.length);
    if (text.charCodeAt(uriEnd) !== CLOSE_PAREN) return undefined;
    const sessionId = decodeUriAt(text, uriStart, uriEnd);
    this.matchEnd = uriEnd + 1;
    return { sessionId, label: unescapeLabel(text.slice(i + 2, close)) };
  }

  private bareAt(i: number): LabeledReference | undefined {
    const payloadStart = i + SESSION_REFERENCE_SCHEME.length;
    let end = payloadStart;
    while (end < this.text.length && isBase64UrlChar(this.text.charCodeAt(end))) end++;
    if (end === payloadStart) return undefined;
    const sessionId = decodeUriAt(this.text, i, end);
    this.matchEnd = end;
    return { sessionId, label: sessionId };
  }

  /**
   * Index of the first unescaped `]` at or after `from`, or -1 when the label
   * cannot close. A backslash escapes the next character unless that is a line
   * terminator (or the end of the text): such a backslash can be neither
   * escaped content nor label text, so no label runs across it.
   */
  private labelCloseFrom(from: number): number {
    if (from >= this.labelFrom && from <= this.labelStop) return this.labelClose;
    const text = this.text;
    let j = from;
    let close = -1;
    while (j < text.length) {
      const code = text.charCodeAt(j);
      if (code === BACKSLASH) {
        if (j + 1 === text.length || isLineTerminator(text.charCodeAt(j + 1))) break;
        j += 2;
      } else if (code === CLOSE_BRACKET) {
        close = j;
        break;
      } else j++;
    }
    this.labelFrom = from;
    this.labelStop = j;
    this.labelClose = close;
    return close;
  }

  /** First index at or after `from` holding `)` or whitespace (or the end). */
  private uriEndFrom(from: number): number {
    if (from >= this.uriFrom && from < this.uriEnd) return this.uriEnd;
    // A sticky regular expression runs the scan in the engine's compiled matcher, faster than a loop here.
    URI_RUN.lastIndex = from;
    URI_RUN.test(this.text);
    this.uriFrom = from;
    this.uriEnd = URI_RUN.lastIndex;
    return this.uriEnd;
  }
}

/** `\n`, `\r`, U+2028 and U+2029: the characters a regular expression's `.` does not match. */
function isLineTerminator(code: number): boolean {
  return code === 0x0a || code === 0x0d || code === 0x2028 || code === 0x2029;
}

function isBase64UrlChar(code: number): boolean {
  return (
    (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a) || (code >= 0x30 && code <= 0x39) || code === 0x2d || code === 0x5f
  );
}

function unescapeLabel(raw: string): string {
  if (!raw.includes('\\')) return raw;
  return raw.replace(/\\([\s\S])/g, '$1');
}
