/**
 * Terminal output: colour only on a TTY without NO_COLOR, progress only on a
 * TTY, and never a raw control character from the data.
 *
 * Session titles, ids, cwds and texts come from logs anyone may have written.
 * Every human output line goes through {@link terminalSafe}: C0 and C1
 * controls (escape sequences such as OSC 52, which writes the clipboard, or
 * CSI, which clears the screen), DEL, line and paragraph separators, bidi
 * overrides, embeddings, isolates and marks (which reorder what is shown),
 * and a few invisible format characters are written as JSON-style escapes
 * (`\u001b`, `\n`, …), so a value can neither act on the terminal nor break a
 * table's row. Line breaks stay only where they are the layout (a message
 * text, a table's rows). Colour is the one exception, and only ours: a style
 * puts a marker carrying this process's random key around its text, and only
 * {@link writeLine} turns markers into colour codes, after everything else
 * has been escaped. JSON output goes the same way; its escapes are valid JSON.
 */
import { nodeCrypto } from '@sessref/platform';
import type { TextOutput } from './stdio.js';

export interface Io {
  stdout: TextOutput;
  stderr: TextOutput;
  env: NodeJS.ProcessEnv;
  /** Where a MESSAGE of `-` is read from; a caller without one has no stdin to give. */
  stdin?: NodeJS.ReadableStream;
}

export interface Style {
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  cyan(text: string): string;
}

/**
 * Colour markers carry this process's random key, which no data can carry
 * (and their noncharacters are escaped in data). Made with the first
 * marker: before it no text holds one, so output without colour never
 * loads `node:crypto` for it.
 */
let markers: { key: string; all: RegExp; only: RegExp } | undefined;

/** Matches nothing: what {@link markerPattern} is until a marker exists. */
const NO_MARKER = /(?!)/g;

function marker(code: number): string {
  if (markers === undefined) {
    const key = nodeCrypto().randomBytes(8).toString('hex');
    const source = `\ufdd0${key}(\\d{1,2})\ufdd1`;
    markers = { key, all: new RegExp(source, 'g'), only: new RegExp(`^${source}$`) };
  }
  return `\ufdd0${markers.key}${code}\ufdd1`;
}

/** Every colour marker made so far, in a text. */
function markerPattern(): RegExp {
  return markers?.all ?? NO_MARKER;
}

/** A style's text is one line: whatever it is given is made {@link terminalSafe} as a line. */
export function styleFor(stream: Io['stdout'], env: NodeJS.ProcessEnv): Style {
  const enabled = stream.isTTY === true && env.NO_COLOR === undefined && env.TERM !== 'dumb';
  const wrap = (open: number, close: number) => (text: string) => {
    const safe = terminalSafe(text);
    return enabled ? `${marker(open)}${safe}${marker(close)}` : safe;
  };
  return { bold: wrap(1, 22), dim: wrap(2, 22), red: wrap(31, 39), green: wrap(32, 39), cyan: wrap(36, 39) };
}

/**
 * Write `text` and a line break: made {@link terminalSafe} as a block (its
 * own line breaks stay; a value meant for one line is made safe as a line
 * first, as {@link table} and the styles do), then colour markers become
 * colour codes. The one way human output reaches a stream.
 */
export function writeLine(stream: Io['stdout'], text = ''): void {
  stream.write(`${toTerminal(terminalSafe(text, 'block'))}\n`);
}

/** Pretty-printed JSON through {@link writeLine}: the escapes it adds are JSON escapes, so the value parses back the same. */
export function writeJson(stream: Io['stdout'], value: unknown): void {
  writeLine(stream, JSON.stringify(value, null, 2));
}

/**
 * Characters that never reach a terminal as themselves: C0 controls but the
 * line break, DEL and C1 controls; Arabic letter mark, left-to-right and
 * right-to-left marks, line and paragraph separators, bidi embeddings and
 * overrides (U+202A–U+202E), isolates (U+2066–U+2069) and the deprecated
 * format controls after them (U+206A–U+206F); the noncharacters colour
 * markers are made of (U+FDD0–U+FDEF); interlinear annotation controls
 * (U+FFF9–U+FFFB), which some renderers use to hide text.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSAFE_TERMINAL_CHARACTERS = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u206f\ufdd0-\ufdef\ufff9-\ufffb]/;
const UNSAFE_IN_BLOCK = new RegExp(UNSAFE_TERMINAL_CHARACTERS.source, 'g');
const UNSAFE_IN_LINE = new RegExp(`${UNSAFE_TERMINAL_CHARACTERS.source}|\\n`, 'g');
const ANY_UNSAFE_IN_LINE = new RegExp(`${UNSAFE_TERMINAL_CHARACTERS.source}|\\n`);
const NAMED_ESCAPES: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function escapeCharacter(character: string): string {
  return NAMED_ESCAPES[character] ?? `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/**
 * `text` with every {@link UNSAFE_TERMINAL_CHARACTERS} character, and as a
 * `line` every line break too, written as a JSON-style escape (`\u001b`,
 * `\u202e`, `\n`, `\t`). A `block` keeps its line breaks. Colour markers
 * made by {@link styleFor} in this process are kept; anything that only looks
 * like one is escaped. Idempotent: safe text stays as it is.
 */
export function terminalSafe(text: string, layout: 'line' | 'block' = 'line'): string {
  const unsafe = layout === 'line' ? UNSAFE_IN_LINE : UNSAFE_IN_BLOCK;
  // Most text (every cell of a long listing) holds nothing to escape, and no marker, whose characters are unsafe too.
  if (!(layout === 'line' ? ANY_UNSAFE_IN_LINE : UNSAFE_TERMINAL_CHARACTERS).test(text)) return text;
  let safe = '';
  let from = 0;
  for (const match of text.matchAll(markerPattern())) {
    safe += text.slice(from, match.index).replace(unsafe, escapeCharacter) + match[0];
    from = match.index + match[0].length;
  }
  return safe + text.slice(from).replace(unsafe, escapeCharacter);
}

/** Colour markers as the SGR sequences they stand for (none before the first marker is made: a long output is not scanned for them). */
function toTerminal(safe: string): string {
  return markers === undefined ? safe : safe.replace(markers.all, (_, code: string) => `\u001b[${code}m`);
}

/**
 * How a column's long cells are cut: to at most `max` terminal columns (when
 * given), keeping their start (a title) or their end (a path); on a terminal
 * too narrow for the table, to no fewer than `min`. Columns ranked by
 * `yields` give up their room before the others, the lowest rank first: what
 * a reader needs least whole (an id, kept for copying and whole under
 * `--json`; a path, often the same from row to row) before a title.
 */
interface ColumnCap {
  readonly max?: number;
  readonly keep?: 'start' | 'end';
  readonly min?: number;
  readonly yields?: number;
}

/**
 * Which columns of a {@link table} may be cut, and the width its lines should
 * fit (a terminal's), if any; `omit`, a column whose cells the others already
 * say, is left out whole where the lines would be wider than that, before any
 * cell is cut.
 */
export interface TableFit {
  readonly caps: Readonly<Record<number, ColumnCap>>;
  readonly width?: number;
  readonly omit?: number;
}

/**
 * Off a terminal, the most columns a title or label keeps: room for any
 * title a person writes, while one 5,000-character title can no longer pad
 * every row to its length. Its full text is under `--json`.
 */
export const TITLE_COLUMNS = 60;
/** ... and a path (its end, where the project's name is). */
export const PATH_COLUMNS = 48;
/** On a narrow terminal a cut column still keeps this many. */
const MIN_CUT_COLUMNS = 16;

/** A fit for `stream`: the caps, and on a terminal its width, which cut columns shrink further to meet. */
export function fitFor(stream: Io['stdout'], caps: TableFit['caps']): TableFit {
  return stream.isTTY === true && stream.columns !== undefined && stream.columns > 0 ? { caps, width: stream.columns } : { caps };
}

/**
 * Columns padded to their widest cell, measured in terminal columns; each
 * cell made {@link terminalSafe} as a line. Cells of a capped column wider
 * than its cap are cut with an ellipsis; when the lines would still be wider
 * than `fit.width`, the column to omit goes first, then the capped columns
 * give up more: by their `yields` rank, then the unranked, widest first, each
 * down to its `min` ({@link MIN_CUT_COLUMNS} unless given).
 */
export function table(rows: readonly (readonly string[])[], fit: TableFit = { caps: {} }): string {
  const safeRows = rows.map((row) => row.map((cell) => terminalSafe(cell)));
  // Each cell is measured once: a listing of thousands of sessions has tens of thousands of cells.
  const cellWidths = safeRows.map((row) => row.map(displayWidth));
  const widths: number[] = [];
  for (const row of cellWidths) row.forEach((width, index) => (widths[index] = Math.max(widths[index] ?? 0, width)));
  const capped = Object.entries(fit.caps).map(([index, cap]) => [Number(index), cap] as const).filter(([index]) => index < widths.length);
  for (const [index, cap] of capped) widths[index] = Math.min(widths[index]!, cap.max ?? Infinity);
  if (fit.width !== undefined && fit.omit !== undefined && lineWidth(widths) > fit.width) return table(rows.map((row) => row.toSpliced(fit.omit!, 1)), withoutColumn(fit, fit.omit));
  if (fit.width !== undefined) shrink(widths, capped, lineWidth(widths) - fit.width);
  return safeRows
    .map((row, at) =>
      row
        .map((cell, index) => {
          const width = cellWidths[at]![index]!;
          // A cell as wide as its column or narrower is not cut: cut would give it back as it is.
          const fitted = width <= widths[index]! || fit.caps[index] === undefined ? cell : cut(cell, widths[index]!, fit.caps[index].keep);
          return index === row.length - 1 ? fitted : fitted + ' '.repeat(widths[index]! - (fitted === cell ? width : displayWidth(fitted)));
        })
        .join('  '),
    )
    .join('\n');
}

/** How wide lines of columns this wide are, two spaces between columns. */
function lineWidth(widths: readonly number[]): number {
  return widths.reduce((sum, width) => sum + width, 2 * (widths.length - 1));
}

/** `fit` for the table without column `omitted`: the caps of the columns after it move one to the left. */
function withoutColumn({ caps, width }: TableFit, omitted: number): TableFit {
  const shifted = Object.entries(caps).flatMap(([index, cap]) => (Number(index) === omitted ? [] : [[Number(index) > omitted ? Number(index) - 1 : Number(index), cap] as const]));
  return { caps: Object.fromEntries(shifted), ...(width === undefined ? {} : { width }) };
}

/** Take `over` columns from the capped columns' `widths`, one at a time: from the lowest `yields` rank, the widest of it, none below its minimum. */
function shrink(widths: number[], capped: readonly (readonly [number, ColumnCap])[], over: number): void {
  const rank = (cap: ColumnCap) => cap.yields ?? Infinity;
  for (let left = over; left > 0; left--) {
    const shrinkable = capped.filter(([index, cap]) => widths[index]! > (cap.min ?? MIN_CUT_COLUMNS));
    const next = shrinkable.sort(([a, capA], [b, capB]) => rank(capA) - rank(capB) || widths[b]! - widths[a]!)[0];
    if (next === undefined) return;
    widths[next[0]]!--;
  }
}

/**
 * `text` in at most `max` terminal columns: cut with an ellipsis where it
 * is wider, keeping its start or its end. Made {@link terminalSafe} first;
 * cuts fall between graphemes (never inside an emoji sequence or before a
 * combining mark), and colour markers are all kept, so a colour still ends.
 */
export function cut(text: string, max: number, keep: 'start' | 'end' = 'start'): string {
  const safe = terminalSafe(text);
  // Code points below U+0300 but CR are graphemes of a column each, and safe text holds no marker then (nor any escape): a slice.
  if (SINGLE_POINT_GRAPHEMES.test(safe)) return safe.length <= max ? safe : sliced(safe, Math.max(0, max - 1), keep);
  if (displayWidth(safe) <= max) return safe;
  // The text as markers (kept whole, no width) and graphemes, in order.
  const parts: { text: string; width: number }[] = [];
  let from = 0;
  const addText = (piece: string) => {
    // Text of single-point graphemes needs no segmenter, whose first use loads ICU's break rules.
    if (SINGLE_POINT_GRAPHEMES.test(piece)) for (const character of piece) parts.push({ text: character, width: displayWidth(character) });
    else for (const { segment } of graphemes().segment(piece)) parts.push({ text: segment, width: displayWidth(segment) });
  };
  for (const match of safe.matchAll(markerPattern())) {
    addText(safe.slice(from, match.index));
    parts.push({ text: match[0], width: 0 });
    from = match.index + match[0].length;
  }
  addText(safe.slice(from));
  const ordered = keep === 'start' ? parts : [...parts].reverse();
  // The ellipsis takes one column.
  let room = max - 1;
  let full = false;
  const kept = ordered.map((part) => {
    if (markers?.only.test(part.text) === true) return part.text;
    full ||= part.width > room;
    if (full) return '';
    room -= part.width;
    return part.text;
  });
  if (keep === 'end') kept.reverse();
  const joined = kept.join('');
  return keep === 'start' ? `${joined}…` : `…${joined}`;
}

/** The first or the last `count` code units of `text`, with the ellipsis on the side cut off. */
function sliced(text: string, count: number, keep: 'start' | 'end'): string {
  return keep === 'start' ? `${text.slice(0, count)}…` : `…${text.slice(text.length - count)}`;
}

/**
 * Text whose every code point is a grapheme of its own: all below U+0300,
 * where the combining marks begin (no mark, joiner, surrogate or emoji to
 * join a neighbour), and no CR, which joins the LF after it. Most titles
 * are: ASCII, accented Latin, a `·` between an agent's name and a title.
 */
// eslint-disable-next-line no-control-regex -- every code point but CR up to U+02FF, controls included (each a grapheme of its own)
const SINGLE_POINT_GRAPHEMES = /^[\0-\f\x0e-\u02ff]*$/;

let segmenter: Intl.Segmenter | undefined;

/** The grapheme segmenter, made on first use: making one loads ICU's break rules, which costs a fresh process more than most commands' work (a listing's cut titles, 15 ms). */
function graphemes(): Intl.Segmenter {
  return (segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' }));
}

/** Styled text as a terminal shows it: colour markers become colour codes (for tests and callers that write on their own). */
export function rendered(text: string): string {
  return toTerminal(text);
}

// Colour codes (SGR sequences) and markers take no columns.
// eslint-disable-next-line no-control-regex -- matching ESC is the point
const ANSI = /\u001b\[[0-9;]*m/g;
const MARK = /^[\p{Mn}\p{Me}]$/u;
const EMOJI = /^\p{Emoji_Presentation}$/u;
/** East Asian Wide and Fullwidth blocks, as code point ranges. */
const WIDE: readonly [number, number][] = [
  [0x1100, 0x115f], [0x2e80, 0x303e], [0x3041, 0x33ff], [0x3400, 0x4dbf], [0x4e00, 0x9fff], [0xa000, 0xa4cf],
  [0xac00, 0xd7a3], [0xf900, 0xfaff], [0xfe30, 0xfe4f], [0xff00, 0xff60], [0xffe0, 0xffe6], [0x20000, 0x3fffd],
];

function cellWidth(point: string): number {
  const code = point.codePointAt(0)!;
  // Below the combining marks nothing is a mark, an emoji or wide: the ASCII of a title with one accent, and the accents.
  if (code < 0x300) return 1;
  if ((code >= 0x200b && code <= 0x200d) || (code >= 0xfe00 && code <= 0xfe0f) || MARK.test(point)) return 0;
  return EMOJI.test(point) || WIDE.some(([from, to]) => code >= from && code <= to) ? 2 : 1;
}

/** Terminal columns a string takes: colour codes and combining marks take none, CJK and emoji two. */
export function displayWidth(text: string): number {
  // Printable ASCII, most of what a listing holds (ids, paths, dates), is one column a character, and holds no marker or escape.
  if (PRINTABLE_ASCII.test(text)) return text.length;
  const plain = text.replace(markerPattern(), '').replace(ANSI, '');
  // A code point below U+0300 takes a column (see cellWidth): those are counted at once, the others one by one.
  const rest = plain.replace(BELOW_MARKS, '');
  let width = plain.length - rest.length;
  for (const point of rest) width += cellWidth(point);
  return width;
}

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
/** Every code point below U+0300, controls included: each takes a column. */
const BELOW_MARKS = /[\0-\u02ff]+/g;

/** One line of preview text, made {@link terminalSafe}, shortened with an ellipsis. */
export function preview(text: string, max = 72): string {
  const flat = terminalSafe(text.replace(/\s+/g, ' ').trim());
  const points = [...flat];
  return points.length <= max ? flat : `${points.slice(0, max - 1).join('')}…`;
}

/**
 * A spinner on stderr for work that takes more than a moment. Silent when
 * stderr is not a TTY, so scripts and CI logs stay clean.
 */
export function progress(io: Io, label: string): { update(text: string): void; stop(): void } {
  if (io.stderr.isTTY !== true) return { update() {}, stop() {} };
  const frames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
  let text = label;
  let frame = 0;
  let shown = false;
  const draw = () => {
    shown = true;
    io.stderr.write(`\r\u001b[2K${frames[frame++ % frames.length]} ${toTerminal(terminalSafe(text))}`);
  };
  const delay = setTimeout(() => {
    draw();
    timer = setInterval(draw, 80);
  }, 300);
  let timer: ReturnType<typeof setInterval> | undefined;
  return {
    update(next) {
      text = next;
    },
    stop() {
      clearTimeout(delay);
      if (timer) clearInterval(timer);
      if (shown) io.stderr.write('\r\u001b[2K');
    },
  };
}

export { formatAge, formatBytes, formatListedAge } from './format.js';
