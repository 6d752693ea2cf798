import type { SurfaceMessage } from '@sessref/core';
import { messageText } from '@sessref/core/internal';
import { SourceReadError } from '../errors.js';
import { asObject, asString, parseLenientLines } from '../json-lines.js';
import { oneLine, surfaceMessage, transcriptOf } from '../surface.js';
import type { Transcript } from '../transcripts/format.js';
import { currentChain, type ChainRecord } from './chain.js';
import { splitGluedObjects } from './glued-lines.js';
import { textParts } from './parts.js';
import { replacementSurface } from './replacement.js';

type JsonRecord = Readonly<Record<string, unknown>>;

/** Where an `@` mention's expansion starts in a recorded prompt (the CLI's `readManyFiles` header). */
const REFERENCED_FILES = '--- Content from referenced files ---';
/** How hook context is appended to a prompt as its last part (`wrapUserPromptSubmitContext`, `transcript-records.ts`). */
const HOOK_CONTEXT = /^<qwen:user-prompt-submit-context>\n[\s\S]*\n<\/qwen:user-prompt-submit-context>$/;
/** Where Qwen Code's session list cuts a first prompt, in code points, and what it adds (`truncatePromptForDisplay`). */
const MAX_PROMPT_TITLE = 200;

/**
 * One Qwen Code chat recording folded (this package's README, "Qwen Code"):
 * its lines read as `jsonl-utils` reads them, the chain `loadSession`
 * rebuilds, and that chain replayed as `SessionApiHistoryAccumulator`
 * replays it into the history the model is sent, each entry classified.
 */
export function foldQwen(text: string, where: string): Transcript {
  const records = parseLenientLines(text, where, splitGluedObjects);
  if (records.length === 0) throw new SourceReadError('SOURCE_SESSION_UNSUPPORTED', `${where} holds no record: Qwen Code lists no session for it`);
  const createdAt = firstTime(records);
  if (createdAt === undefined) throw new SourceReadError('SOURCE_SESSION_UNSUPPORTED', `${where} has no timestamped record`);
  const messages = historyOf(currentChain(records, where), where);
  const cwd = asString(records[0]?.['cwd']);
  const title = titleOf(records);
  return transcriptOf({
    createdAt,
    cwd,
    title,
    messages,
    throughRecord: records.length - 1,
  });
}

/**
 * The chain replayed as `SessionApiHistoryAccumulator.add` does
 * (`session-api-history.ts`): a record with a message appends it (a
 * `realtime_message` never does); a `chat_compression` whose
 * `compressedHistory` is set replaces everything so far with that history;
 * a `slash_command` result that was not sent to the model takes back the
 * raw command the user record before it appended; other system records add
 * nothing. A replacement that is not a list leaves Qwen Code unable to
 * resume the session (its `finishSession` maps it), so it refuses the file.
 */
function historyOf(chain: readonly ChainRecord[], where: string): SurfaceMessage[] {
  let history: SurfaceMessage[] = [];
  let replacedByNonList = false;
  let lastAppended: ChainRecord | undefined;
  const typed = new Set<string>();
  for (const entry of chain) {
    const { record } = entry;
    if (record['type'] === 'system') {
      const payload = asObject(record['systemPayload']);
      if (record['subtype'] === 'slash_command') {
        if (takesBackCommand(payload, lastAppended)) history.pop();
        if (lastAppended?.record['type'] === 'user') lastAppended = undefined;
      } else if (record['subtype'] === 'chat_compression' && payload?.['compressedHistory']) {
        const replacement = payload['compressedHistory'];
        replacedByNonList = !Array.isArray(replacement);
        history = Array.isArray(replacement) ? replacementSurface(replacement, typed) : [];
        lastAppended = undefined;
      }
      continue;
    }
    if (replacedByNonList || !entry.hasMessage || record['subtype'] === 'realtime_message') continue;
    const message = surfaceOf(entry);
    if (message.origin === 'direct-user') typed.add(messageText(message.content));
    history.push(message);
    lastAppended = entry;
  }
  if (replacedByNonList) throw new SourceReadError('SOURCE_SESSION_CORRUPT', `${where} replaces its history with something that is not a list: Qwen Code cannot resume it`);
  return history;
}

/** Whether a `slash_command` result takes back the record before it: a bare prompt holding exactly the raw command, answered locally (`SessionApiHistoryAccumulator.add`). */
function takesBackCommand(payload: JsonRecord | undefined, previous: ChainRecord | undefined): boolean {
  const items = payload?.['outputHistoryItems'];
  if (payload?.['phase'] !== 'result' || payload['sentToModel'] === true || !Array.isArray(items) || items.length === 0) return false;
  if (!items.every((item) => asObject(item)?.['type'] === 'assistant')) return false;
  if (previous === undefined || previous.record['type'] !== 'user' || previous.record['subtype'] !== undefined || previous.parts.length !== 1) return false;
  const part = asObject(previous.parts[0]);
  return part !== undefined && Object.keys(part).length === 1 && typeof part['text'] === 'string' && part['text'] === payload['rawCommand'];
}

/**
 * What one appended record is on the surface. A `user` record of the
 * user's own (no subtype or `mid_turn_user_message`, `provenance`
 * `real_user` or none, as `coherentEvidenceProvenance` and
 * `legacySafeProvenance` tell them) is direct user text: what
 * the user typed (below). Other `user` records (cron prompts,
 * notifications, goal runtime messages) are text Qwen Code puts in. An
 * `assistant` record without subtype carries its text parts, never
 * `thought` or `functionCall` parts; a `tool_result` or any record holding
 * a `functionResponse` is a tool message.
 */
function surfaceOf(entry: ChainRecord): SurfaceMessage {
  const { record, parts } = entry;
  if (record['type'] === 'tool_result' || parts.some((part) => asObject(part)?.['functionResponse'] !== undefined)) return surfaceMessage('tool', 'other', []);
  if (record['type'] === 'assistant' && record['subtype'] === undefined) return surfaceMessage('assistant', 'other', textParts(parts));
  const typed = isTypedByUser(record) ? typedTexts(record, parts) : [];
  return typed.length > 0 ? surfaceMessage('user', 'direct-user', typed) : surfaceMessage('user', 'other', textParts(parts));
}

function isTypedByUser(record: JsonRecord): boolean {
  const { type, subtype, provenance } = record;
  return type === 'user' && (subtype === undefined || subtype === 'mid_turn_user_message') && (provenance === undefined || provenance === 'real_user');
}

/**
 * What the user typed: the recorded `displayText` when there is one (hook
 * context or a mid-turn message, `projectUserTranscriptForDisplay`), else
 * the text parts without a final hook-context part, cut where an `@`
 * mention's file contents start.
 */
function typedTexts(record: JsonRecord, parts: readonly unknown[]): string[] {
  const displayText = asString(asObject(record['systemPayload'])?.['displayText']);
  if (displayText !== undefined && displayText.trim() !== '') return [displayText];
  const texts = textParts(parts).filter((text) => !HOOK_CONTEXT.test(text.trim()));
  const typed: string[] = [];
  for (const text of texts) {
    const cut = text.indexOf(REFERENCED_FILES);
    if (cut >= 0) {
      if (text.slice(0, cut).trim() !== '') typed.push(text.slice(0, cut).trimEnd());
      break;
    }
    typed.push(text);
  }
  return typed;
}

/**
 * Qwen Code's title: the latest `custom_title` anywhere in the file
 * (`readSessionTitleInfoFromFileSync` reads the last one), else its list's
 * first prompt (`extractFirstPromptFromRecords`: the first prompt record's
 * `displayText`, else its first text part) on one line, cut after 200
 * code points with `...` as `truncatePromptForDisplay` cuts it.
 */
function titleOf(records: readonly JsonRecord[]): string | undefined {
  const named = records.findLast((record) => record['type'] === 'system' && record['subtype'] === 'custom_title' && customTitle(record) !== '');
  if (named !== undefined) return customTitle(named);
  for (const record of records) {
    if (record['type'] !== 'user' || record['subtype'] !== undefined) continue;
    const displayText = asString(asObject(record['systemPayload'])?.['displayText']);
    const prompt = oneLine(displayText ?? textParts(asArray(asObject(record['message'])?.['parts']))[0] ?? '');
    if (prompt !== '') return cutPrompt(prompt);
  }
  return undefined;
}

/** The first record's `timestamp` that parses (Qwen Code's `startTime` is the first record's). */
function firstTime(records: readonly JsonRecord[]): number | undefined {
  for (const record of records) {
    const time = Date.parse(asString(record['timestamp']) ?? '');
    if (!Number.isNaN(time)) return time;
  }
  return undefined;
}

function customTitle(record: JsonRecord): string {
  return oneLine(asString(asObject(record['systemPayload'])?.['customTitle']) ?? '');
}

function cutPrompt(prompt: string): string {
  const codePoints = Array.from(prompt);
  return codePoints.length > MAX_PROMPT_TITLE ? `${codePoints.slice(0, MAX_PROMPT_TITLE).join('')}...` : prompt;
}

function asArray(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : [];
}
