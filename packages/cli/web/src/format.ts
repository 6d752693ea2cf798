export { formatAge, formatBytes, formatListedAge } from '../../src/format.js';

/** What stands for a missing title, as `sessref list` writes it. */
export const UNTITLED = '(untitled)';

export function shortId(id: string): string {
  return id.length > 14 ? `${id.slice(0, 12)}…` : id;
}

/** A title inside a sentence, in quotes and cut to `max` characters: a sentence cannot end in an ellipsis the way a table cell can. */
export function quoted(title: string, max = 80): string {
  const characters = [...title];
  return `“${characters.length > max ? `${characters.slice(0, max - 1).join('')}…` : title}”`;
}

export function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}
