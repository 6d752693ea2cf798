import type { SurfaceMessage } from '@sessref/core';
import { messageText } from '@sessref/core/internal';
import { asObject } from '../json-lines.js';
import { surfaceMessage } from '../surface.js';
import { textParts } from './parts.js';

/** The model turn a compression puts after its summary (`composePostCompactHistory`, `chatCompressionService.ts`). */
const ACKNOWLEDGEMENT = 'Got it. Thanks for the additional context!';
/** What `postProcessSummary` appends to every summary, after a blank line. */
const RESUME_TRAILER = 'Resume the prior task using the summary above. Continue from the last in-flight step; do not acknowledge the summary, do not re-introduce, do not greet the user again.';

/**
 * A `chat_compression`'s `compressedHistory` on the surface: the history
 * the model is sent from then on. A user entry the acknowledgement follows
 * is the summary (`composePostCompactHistory` puts it first), the
 * checkpoint, without its resume trailer or the reminders after its first
 * part; nothing before the last one is carried. Model entries carry their
 * text but the acknowledgement; entries with a `functionResponse` are tool
 * results. Any other user entry is a prompt the user typed earlier in the
 * chain (`typed`: a fast compression keeps them as they were), else text
 * Qwen Code composed (recent files and images restored, plan-mode and
 * background-task reminders), never carried.
 */
export function replacementSurface(contents: readonly unknown[], typed: ReadonlySet<string>): SurfaceMessage[] {
  const entries = contents.map((content) => asObject(content));
  const messages: SurfaceMessage[] = [];
  let start = 0;
  entries.forEach((entry, index) => {
    const parts: readonly unknown[] = Array.isArray(entry?.['parts']) ? entry['parts'] : [];
    const texts = textParts(parts);
    if (entry?.['role'] === 'model') {
      messages.push(surfaceMessage('assistant', 'other', texts.filter((text) => text.trim() !== ACKNOWLEDGEMENT)));
    } else if (parts.some((part) => asObject(part)?.['functionResponse'] !== undefined)) {
      messages.push(surfaceMessage('tool', 'other', []));
    } else if (isAcknowledgement(entries[index + 1])) {
      start = messages.length;
      messages.push(surfaceMessage('user', 'compact-checkpoint', [withoutTrailer(texts[0] ?? '')]));
    } else {
      const message = surfaceMessage('user', 'other', texts);
      messages.push(typed.has(messageText(message.content)) ? { ...message, origin: 'direct-user' } : message);
    }
  });
  return messages.slice(start);
}

function isAcknowledgement(entry: Readonly<Record<string, unknown>> | undefined): boolean {
  const first = Array.isArray(entry?.['parts']) ? textParts(entry['parts'])[0] : undefined;
  return entry?.['role'] === 'model' && first?.trim() === ACKNOWLEDGEMENT;
}

function withoutTrailer(summary: string): string {
  const trimmed = summary.trimEnd();
  return trimmed.endsWith(RESUME_TRAILER) ? trimmed.slice(0, -RESUME_TRAILER.length).trimEnd() : trimmed;
}
