import type { SurfaceMessage } from '@sessref/core';
import { SourceReadError } from '../errors.js';
import { parseJson } from '../json-lines.js';
import type { Transcript } from '../transcripts/format.js';
import { linesOf, type Line } from './lines.js';
import { currentHistory } from './replay.js';
import { stepOf, type Entry, type Step } from './records.js';

/** How long a title taken from the first prompt may be. */
const MAX_PROMPT_TITLE = 80;
const FIRST_LINE = /\S[^\n]*/;

/** What reading a rollout's lines gathers besides the reducer's steps. */
interface Facts {
  meta?: Extract<Step, { kind: 'meta' }>;
  cwd?: string;
  title?: string;
}

/**
 * Fold one rollout's text into its current conversation. Every complete line
 * must be JSON (a line Codex would skip is refused here, so a snapshot never
 * silently misses a record); a torn last line is a write in progress and is
 * left out. The first session header is the session's (fork files repeat
 * their parent's after it); a file without one is not a rollout.
 */
export function foldRollout(text: string): Transcript {
  const facts: Facts = {};
  const steps: Step[] = [];
  let records = 0;
  for (const line of linesOf(text)) {
    if (line.text.trim() === '') continue;
    const record = parseLine(line);
    if (record === TORN) continue;
    const step = stepOf(record, records === 0);
    records += 1;
    if (step !== undefined && !noteFact(facts, step)) steps.push(step);
  }
  const createdAt = createdAtOf(facts.meta);
  const history = currentHistory(steps);
  const cwd = facts.meta?.cwd ?? facts.cwd;
  const title = facts.title ?? promptTitle(history);
  const messages = history.flatMap(surfaceOf);
  return { createdAt, ...(cwd === undefined ? {} : { cwd }), ...(title === undefined ? {} : { title }), messages, throughRecord: records === 0 ? null : records - 1 };
}

const TORN = Symbol('torn');

function parseLine(line: Line): unknown {
  try {
    return parseJson(line.text, `line ${line.number}`);
  } catch (error) {
    if (!line.complete && error instanceof SourceReadError && error.code === 'SOURCE_SESSION_CORRUPT') return TORN;
    throw error;
  }
}

/** Keep a session fact from `step`; `true` when the step was one (the reducer never sees facts). */
function noteFact(facts: Facts, step: Step): boolean {
  switch (step.kind) {
    case 'meta':
      facts.meta ??= step;
      return true;
    case 'cwd':
      facts.cwd ??= step.cwd;
      return true;
    case 'title':
      facts.title = step.title;
      return true;
    default:
      return false;
  }
}

/** The session's start: its header's UTC timestamp (file names hold local time, never read as UTC). */
function createdAtOf(meta: Facts['meta']): number {
  if (meta === undefined) throw new SourceReadError('SOURCE_SESSION_UNSUPPORTED', 'has no session header (session_meta): it is not a Codex rollout');
  const createdAt = meta.timestamps.map((timestamp) => Date.parse(timestamp)).find((time) => Number.isFinite(time));
  if (createdAt === undefined) throw new SourceReadError('SOURCE_SESSION_UNSUPPORTED', 'has a session header without a valid timestamp');
  return createdAt;
}

function surfaceOf(entry: Entry): SurfaceMessage[] {
  switch (entry.kind) {
    case 'user':
      return [{ role: 'user', origin: 'direct-user', content: entry.texts.map((text) => ({ type: 'text', text })) }];
    case 'checkpoint':
      return [{ role: 'user', origin: 'compact-checkpoint', content: [{ type: 'text', text: entry.text }] }];
    case 'assistant':
      return [{ role: 'assistant', origin: 'other', content: entry.texts.map((text) => ({ type: 'text', text })) }];
    case 'instruction':
      return [];
  }
}

/** A title from the first thing the user asked, when Codex named the thread nowhere: its first non-blank line, shortened. */
function promptTitle(history: readonly Entry[]): string | undefined {
  for (const entry of history) {
    if (entry.kind !== 'user') continue;
    for (const text of entry.texts) {
      const line = FIRST_LINE.exec(text)?.[0];
      if (line !== undefined) return line.trim().slice(0, MAX_PROMPT_TITLE);
    }
  }
  return undefined;
}
