/** Terminal output: colour only on a TTY without NO_COLOR, progress only on a TTY. */
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

export function styleFor(stream: Io['stdout'], env: NodeJS.ProcessEnv): Style {
  const enabled = stream.isTTY === true && env.NO_COLOR === undefined && env.TERM !== 'dumb';
  const wrap = (open: number, close: number) => (text: string) => (enabled ? `\u001b[${open}m${text}\u001b[${close}m` : text);
  return { bold: wrap(1, 22), dim: wrap(2, 22), red: wrap(31, 39), green: wrap(32, 39), cyan: wrap(36, 39) };
}

export function writeLine(stream: Io['stdout'], text = ''): void {
  stream.write(`${text}\n`);
}

export function writeJson(stream: Io['stdout'], value: unknown): void {
  stream.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Columns padded to their widest cell, measured in terminal columns. */
export function table(rows: readonly (readonly string[])[]): string {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, index) => (widths[index] = Math.max(widths[index] ?? 0, displayWidth(cell))));
  return rows
    .map((row) => row.map((cell, index) => (index === row.length - 1 ? cell : cell + ' '.repeat(widths[index]! - displayWidth(cell)))).join('  '))
    .join('\n');
}

// Colour codes (SGR sequences) take no columns.
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
  for (const point of text.replace(ANSI, '')) width += cellWidth(point);
  return width;
}

/** One line of preview text, shortened with an ellipsis. */
export function preview(text: string, max = 72): string {
  const flat = text.replace(/\s+/g, ' ').trim();
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
    io.stderr.write(`\r\u001b[2K${frames[frame++ % frames.length]} ${text}`);
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
