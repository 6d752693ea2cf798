import type { SurfaceMessage } from '@sessref/core';
import { isTextBlock } from '@sessref/core/internal';
import { asObject, asString } from '../json-lines.js';
import { oneLine } from '../surface.js';

/** How long Claude Code lets a title taken from a prompt be, in characters. */
const MAX_PROMPT_TITLE = 200;

/**
 * The session's title from the records beside the tree: the latest
 * `custom-title` (the user's `/rename`), else the latest `ai-title`, else
 * the latest `summary` whose `leafUuid` is on the current chain (an old
 * summary titles the conversation ending at that leaf, which may be another
 * branch or another file). Blank titles count as none.
 */
export function titleOf(records: readonly unknown[], chainUuids: ReadonlySet<string>): string | undefined {
  let custom: string | undefined;
  let generated: string | undefined;
  let summary: string | undefined;
  for (const value of records) {
    const record = asObject(value);
    if (record === undefined) continue;
    if (record['type'] === 'custom-title') custom = nonBlank(record['customTitle']) ?? custom;
    else if (record['type'] === 'ai-title') generated = nonBlank(record['aiTitle']) ?? generated;
    else if (record['type'] === 'summary' && isOn(chainUuids, record['leafUuid'])) summary = nonBlank(record['summary']) ?? summary;
  }
  return custom ?? generated ?? summary;
}

/**
 * Claude Code's own title when no record names the session: the first
 * thing the user typed in the current conversation (never a message a
 * compaction replaced), on one line, cut where Claude Code cuts it.
 */
export function promptTitle(surface: readonly SurfaceMessage[]): string | undefined {
  const first = surface.find((message) => message.origin === 'direct-user');
  const text = first === undefined ? '' : oneLine(first.content.flatMap((block) => (isTextBlock(block) ? [block.text] : [])).join(' '));
  return text === '' ? undefined : Array.from(text).slice(0, MAX_PROMPT_TITLE).join('');
}

/** When the session started, epoch ms: the first record's `timestamp` that is a date (side records often have none). */
export function createdAtOf(records: readonly unknown[]): number | undefined {
  for (const value of records) {
    const time = Date.parse(asString(asObject(value)?.['timestamp']) ?? '');
    if (!Number.isNaN(time)) return time;
  }
  return undefined;
}

/** The working directory the session started in: the first record's `cwd` (it may change later; the start names the session). */
export function cwdOf(records: readonly unknown[]): string | undefined {
  for (const value of records) {
    const cwd = asString(asObject(value)?.['cwd']);
    if (cwd !== undefined && cwd !== '') return cwd;
  }
  return undefined;
}

function isOn(chainUuids: ReadonlySet<string>, leafUuid: unknown): boolean {
  return typeof leafUuid === 'string' && chainUuids.has(leafUuid);
}

function nonBlank(value: unknown): string | undefined {
  const text = asString(value)?.trim();
  return text === undefined || text === '' ? undefined : text;
}
