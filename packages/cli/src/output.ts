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
import { randomBytes } from 'node:crypto';

export interface Io {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
}

export interface Style {
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  cyan(text: string): string;
}

/** Colour markers carry this process's random key, which no data can carry (and their noncharacters are escaped in data). */
const MARKER_KEY = randomBytes(8).toString('hex');
const MARKER = new RegExp(`\ufdd0${MARKER_KEY}(\\d{1,2})\ufdd1`, 'g');

function marker(code: number): string {
  return `\ufdd0${MARKER_KEY}${code}\ufdd1`;
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
  let safe = '';
  let from = 0;
  for (const match of text.matchAll(MARKER)) {
    safe += text.slice(from, match.index).replace(unsafe, escapeCharacter) + match[0];
    from = match.index + match[0].length;
  }
  return safe + text.slice(from).replace(unsafe, escapeCharacter);
}

/** Colour markers as the SGR sequences they stand for. */
function toTerminal(safe: string): string {
  return safe.replace(MARKER, (_, code: string) => `\u001b[${code}m`);
}

/** Columns padded to their widest cell, measured in terminal columns; each cell made {@link terminalSafe} as a line. */
export function table(rows: readonly (readonly string[])[]): string {
  const safeRows = rows.map((row) => row.map((cell) => terminalSafe(cell)));
  const widths: number[] = [];
  for (const row of safeRows) row.forEach((cell, index) => (widths[index] = Math.max(widths[index] ?? 0, displayWidth(cell))));
  return safeRows
    .map((row) => row.map((cell, index) => (index === row.length - 1 ? cell : cell + ' '.repeat(widths[index]! - displayWidth(cell)))).join('  '))
    .join('\n');
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
  if ((code >= 0x200b && code <= 0x200d) || (code >= 0xfe00 && code <= 0xfe0f) || MARK.test(point)) return 0;
  return EMOJI.test(point) || WIDE.some(([from, to]) => code >= from && code <= to) ? 2 : 1;
}

/** Terminal columns a string takes: colour codes and combining marks take none, CJK and emoji two. */
export function displayWidth(text: string): number {
  let width = 0;
  for (const point of text.replace(MARKER, '').replace(ANSI, '')) width += cellWidth(point);
  return width;
}

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

export { formatAge, formatBytes } from './format.js';
