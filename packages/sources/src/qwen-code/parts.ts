import { asObject, asString } from '../json-lines.js';

/** The text parts of a Gemini-style part list (Qwen Code's `message.parts`), `thought` parts and blank texts left out. */
export function textParts(parts: readonly unknown[]): string[] {
  return parts.flatMap((part) => {
    const text = asObject(part)?.['thought'] === true ? undefined : asString(asObject(part)?.['text']);
    return text === undefined || text.trim() === '' ? [] : [text];
  });
}
