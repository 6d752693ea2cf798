import { readdirSync } from 'node:fs';

/**
 * The on-disk layout of dsh's JSONL persistence:
 * `<root>/<project directory>/<encoded session id>/<log file>`.
 */

/** dsh's default log file name (zstd JSONL). */
export const DEFAULT_LOG_FILE_NAME = 'session.jsonl.zstd';

/** Names of the subdirectories of `path` (symbolic links excluded); none when it cannot be listed. */
export function listSubdirectories(path: string): string[] {
  try {
    return readdirSync(path, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
  } catch {
    return [];
  }
}

/**
 * The JSONL backend's session directory name for `sessionId`: safe characters
 * (`A-Z a-z 0-9 . _ -`) are literal and every other UTF-16 code unit is
 * `~XXXX`; `.` and `..` are escaped whole. `undefined` for the empty id, which
 * names no directory.
 */
export function encodeSessionDirectory(sessionId: string): string | undefined {
  if (sessionId.length === 0) return undefined;
  if (sessionId === '.') return '~002E';
  if (sessionId === '..') return '~002E~002E';
  let encoded = '';
  for (let index = 0; index < sessionId.length; index++) {
    const char = sessionId[index]!;
    encoded += /^[A-Za-z0-9._-]$/.test(char) ? char : `~${sessionId.charCodeAt(index).toString(16).toUpperCase().padStart(4, '0')}`;
  }
  return encoded;
}

/**
 * Invert the JSONL backend's session directory name: safe characters are
 * literal and every other UTF-16 code unit is `~XXXX`. A name that is not
 * such an encoding is returned as it is.
 */
export function decodeSessionDirectory(segment: string): string {
  if (!/^(?:[A-Za-z0-9._-]|~[0-9A-F]{4})+$/.test(segment)) return segment;
  return segment.replace(/~([0-9A-F]{4})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}
