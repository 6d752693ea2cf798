/**
 * What every foreign transcript writer of the suite-6 corpus shares: the
 * JSON line, ids and times of session `n`, and a writer that counts the
 * bytes it puts on disk under the temporary HOME.
 */
import { Buffer } from 'node:buffer';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The corpus's first session starts here; session `n` a minute after session `n - 1`, so every listing has a fixed order. */
export const EPOCH = Date.parse('2026-06-01T08:00:00.000Z');

export const line = (record) => `${JSON.stringify(record)}\n`;
export const pad = (n, width) => String(n).padStart(width, '0');
export const iso = (ms) => new Date(ms).toISOString();

/** A UUID unique per agent (`salt`, 1 to 15) and session number. */
export const uuidOf = (n, salt) => `${(salt * 0x10000000 + n).toString(16).padStart(8, '0')}-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;

/** The working directory of session `n`: sessions share `projects` folders, as a user's do. */
export const cwdOf = (n, projects, name = 'project') => `/work/${name}-${n % projects}`;

/** Session `n`'s start time and a clock that moves `stepMs` on each call, for the times of its records. */
export function sessionClock(n, stepMs = 1500) {
  const start = EPOCH + n * 60_000;
  let time = start;
  return { start, tick: () => iso((time += stepMs)), tickMs: () => (time += stepMs), now: () => time };
}

/**
 * Files written under `home`, by path relative to it: each folder created
 * once (ten thousand mkdir calls would cost more than the writes), the bytes
 * written counted for the report.
 */
export function homeWriter(home) {
  const folders = new Set();
  let bytes = 0;
  return {
    home,
    /** The absolute path of `relative`, its folder created. */
    path(relative) {
      const path = join(home, relative);
      const folder = dirname(path);
      if (!folders.has(folder)) mkdirSync(folder, { recursive: true });
      folders.add(folder);
      return path;
    },
    write(relative, data) {
      writeFileSync(this.path(relative), data);
      bytes += Buffer.byteLength(data);
    },
    /** Bytes of a file written by other means (a database). */
    count(size) {
      bytes += size;
    },
    get bytes() {
      return bytes;
    },
  };
}
