import type { ContentBlockLike, TextBlockLike } from './types.js';

/**
 * Whether a block is a text block: tagged `text` and carrying string text.
 * The one test every projection and parse uses, so a foreign block that only
 * claims the tag is never read as text.
 */
export function isTextBlock<Block extends ContentBlockLike>(block: Block): block is Block & TextBlockLike {
  return block.type === 'text' && 'text' in block && typeof block.text === 'string';
}
