import type { MessageOrigin, SurfaceMessage } from '@sessref/core';
import { asObject, asString } from './json-lines.js';
import type { Transcript } from './transcripts/format.js';

/**
 * A surface message of the given texts, one text block each (empty texts
 * left out). The readers classify; the core's projection decides what a
 * snapshot carries from `role` and `origin` alone.
 */
export function surfaceMessage(role: SurfaceMessage['role'], origin: MessageOrigin, texts: readonly string[]): SurfaceMessage {
  return { role, origin, content: texts.filter((text) => text.length > 0).map((text) => ({ type: 'text', text })) };
}

/** A message's content as blocks (Anthropic-style, as Cline, Factory Droid and pi record it): a string is one text block; a list gives its objects. */
export function contentBlocks(content: unknown): Readonly<Record<string, unknown>>[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return Array.isArray(content) ? content.map((block: unknown) => asObject(block)).filter((block) => block !== undefined) : [];
}

/** A message's text: the text of its `text` blocks ({@link contentBlocks}); blank texts are none. */
export function contentTexts(content: unknown): string[] {
  return contentBlocks(content).flatMap((block) => (block['type'] === 'text' ? (asString(block['text']) ?? []) : [])).filter((text) => text.trim() !== '');
}

/** A title as one line: runs of whitespace (newlines included) become one space. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** What a fold found, before the optional facts are left out. */
interface FoldedFacts extends Omit<Transcript, 'cwd' | 'title'> {
  cwd: string | undefined;
  title: string | undefined;
}

/** A fold's transcript: a `cwd` that is missing or empty and a missing title are left out, as a listing shows none. */
export function transcriptOf({ cwd, title, ...rest }: FoldedFacts): Transcript {
  return { ...rest, ...(cwd === undefined || cwd === '' ? {} : { cwd }), ...(title === undefined ? {} : { title }) };
}
