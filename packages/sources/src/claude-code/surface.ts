import type { MessageOrigin, SurfaceMessage, TextBlockLike } from '@sessref/core';
import { asObject } from '../json-lines.js';
import type { ChainRecord, RawRecord } from './records.js';
import { isInjectedText } from './user-text.js';

/** A surface message whose content may still grow (an assistant reply written over several lines). */
interface Building {
  readonly role: SurfaceMessage['role'];
  readonly origin: MessageOrigin;
  readonly content: TextBlockLike[];
}

/**
 * The surface of the current chain: from its latest compaction checkpoint
 * on (what came before was compacted away), each `user` record classified
 * and the lines of one assistant reply joined. Records of other types
 * (system, progress, attachments) are not messages. Only text blocks are
 * kept: thinking, tool calls, images and blank text never reach the surface.
 */
export function surfaceOf(chain: readonly ChainRecord[]): SurfaceMessage[] {
  const start = Math.max(0, chain.findLastIndex(isCheckpoint));
  const messages: Building[] = [];
  const replies = new Map<string, Building>();
  for (const record of chain.slice(start)) {
    if (record.type === 'user') messages.push(userMessage(record));
    else if (record.type === 'assistant' && record.mainLine) {
      const id = messageOf(record.record)?.['id'];
      const blocks = textBlocks(record.record);
      const reply = typeof id === 'string' ? replies.get(id) : undefined;
      if (reply !== undefined) reply.content.push(...blocks);
      else {
        const created: Building = { role: 'assistant', origin: 'other', content: blocks };
        messages.push(created);
        if (typeof id === 'string') replies.set(id, created);
      }
    }
  }
  // A reply that was only thinking or tool calls leaves nothing to show.
  return messages.filter((message) => message.role !== 'assistant' || message.content.length > 0);
}

/** The `user` record Claude Code writes after a compaction boundary, carrying the summary: the conversation's checkpoint. */
function isCheckpoint(record: ChainRecord): boolean {
  return record.type === 'user' && record.mainLine && record.record['isCompactSummary'] === true;
}

/**
 * A `user` record by what it holds: tool results are `tool`; a subagent's,
 * team's or injected record is `other`; the checkpoint is the checkpoint;
 * else the blocks the user typed are `direct-user`, and a record with none
 * (only command, shell or interrupt markers) is `other`.
 */
function userMessage(record: ChainRecord): Building {
  const blocks = textBlocks(record.record);
  if (holdsToolResult(record.record)) return { role: 'tool', origin: 'other', content: blocks };
  if (!record.mainLine) return { role: 'user', origin: 'other', content: blocks };
  if (isCheckpoint(record)) return { role: 'user', origin: 'compact-checkpoint', content: blocks };
  const typed = blocks.filter((block) => !isInjectedText(block.text));
  return typed.length > 0 ? { role: 'user', origin: 'direct-user', content: typed } : { role: 'user', origin: 'other', content: blocks };
}

/** Whether a `user` record answers a tool call (a rejected call looks the same). */
function holdsToolResult(record: RawRecord): boolean {
  const content = messageOf(record)?.['content'];
  return 'toolUseResult' in record || (Array.isArray(content) && content.some((block) => asObject(block)?.['type'] === 'tool_result'));
}

function messageOf(record: RawRecord): Record<string, unknown> | undefined {
  return asObject(record['message']);
}

/** The record's text blocks, as fresh blocks: string content is one block; blank text is none. */
function textBlocks(record: RawRecord): TextBlockLike[] {
  const content = messageOf(record)?.['content'];
  const texts = typeof content === 'string' ? [content] : Array.isArray(content) ? content.map(blockText) : [];
  return texts.flatMap((text) => (text === undefined || text.trim() === '' ? [] : [{ type: 'text', text }]));
}

function blockText(block: unknown): string | undefined {
  const object = asObject(block);
  return object?.['type'] === 'text' && typeof object['text'] === 'string' ? object['text'] : undefined;
}
