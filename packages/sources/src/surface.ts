import type { MessageOrigin, SurfaceMessage } from '@sessref/core';
import type { Transcript } from './transcripts/format.js';

/**
 * A surface message of the given texts, one text block each (empty texts
 * left out). The readers classify; the core's projection decides what a
 * snapshot carries from `role` and `origin` alone.
 */
export function surfaceMessage(role: SurfaceMessage['role'], origin: MessageOrigin, texts: readonly string[]): SurfaceMessage {
  return { role, origin, content: texts.filter((text) => text.length > 0).map((text) => ({ type: 'text', text })) };
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
