import { relative } from 'node:path';
import { SourceReadError } from '../errors.js';
import { parseJsonLines } from '../json-lines.js';
import type { Transcript, TranscriptFile } from '../transcripts/format.js';
import { currentChain } from './chain.js';
import { createdAtOf, cwdOf, promptTitle, titleOf } from './facts.js';
import { chainRecords } from './records.js';
import { surfaceOf } from './surface.js';

/**
 * One Claude Code transcript folded: its records parsed (a torn last line
 * is a write in progress and left out; any other line that is not JSON, or
 * nests too deep, refuses the transcript), the current chain walked, its
 * surface classified, and the session's facts read (its title from its
 * title records, else from its first prompt). A transcript no record
 * of which has a timestamp (an empty file, titles only) is not a session.
 */
export function foldClaudeCode(text: string, file: TranscriptFile): Transcript {
  const name = relative(file.home, file.path);
  const records = parseJsonLines(text, name);
  const createdAt = createdAtOf(records);
  if (createdAt === undefined) throw new SourceReadError('SOURCE_SESSION_UNSUPPORTED', `${name} has no record with a timestamp: not a Claude Code session`);
  const chain = currentChain(chainRecords(records));
  const messages = surfaceOf(chain);
  const title = titleOf(records, new Set(chain.map((record) => record.uuid))) ?? promptTitle(messages);
  const cwd = cwdOf(records);
  return {
    createdAt,
    ...(cwd === undefined ? {} : { cwd }),
    ...(title === undefined ? {} : { title }),
    messages,
    throughRecord: records.length === 0 ? null : records.length - 1,
  };
}
