import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import { parseJson, asObject, asString } from '../json-lines.js';
import { readRegularFile } from '@sessref/platform';
import type { WalkTrail } from '@sessref/platform';
import type { SourceEnvironment } from '../transcripts/format.js';
import { AGENTS } from '../agents.js';
import { linesOf } from './lines.js';

/** The largest title index read: a line per rename, so megabytes are years of use. */
const MAX_INDEX_BYTES = 64 * 1024 * 1024;

/**
 * Thread names from `session_index.jsonl`, by thread id. The index is
 * append-only and the newest entry for an id wins; lines that are not
 * entries, and blank names, are skipped, as Codex skips them
 * (codex-rs/rollout/src/session_index.rs). Titles are a nicety: an index
 * that is missing, a link, a special file, too large or unreadable gives none.
 */
export function readCodexTitles(environment: SourceEnvironment, trail?: WalkTrail): ReadonlyMap<string, string> {
  const path = join(AGENTS.codex.home(environment), 'session_index.jsonl');
  trail?.files.add(path);
  try {
    if (!lstatSync(path).isFile()) return new Map();
    const bytes = readRegularFile(path, MAX_INDEX_BYTES);
    return bytes === undefined ? new Map() : titlesIn(bytes.toString('utf8'));
  } catch {
    return new Map();
  }
}

/** The newest non-blank name per id in an index's text. */
function titlesIn(text: string): Map<string, string> {
  const titles = new Map<string, string>();
  for (const line of linesOf(text)) {
    const entry = entryOf(line.text);
    if (entry !== undefined) titles.set(entry.id, entry.name);
  }
  return titles;
}

function entryOf(line: string): { id: string; name: string } | undefined {
  if (line.trim() === '') return undefined;
  let record: Record<string, unknown> | undefined;
  try {
    record = asObject(parseJson(line, 'session_index.jsonl'));
  } catch {
    return undefined;
  }
  const id = asString(record?.['id']);
  const name = asString(record?.['thread_name'])?.trim();
  return id === undefined || name === undefined || name === '' ? undefined : { id, name };
}
