import { describe, expect, it } from 'vitest';
import { isTextBlock } from './text-block.js';
import type { ContentBlockLike } from './types.js';

describe('isTextBlock', () => {
  it('accepts a text block and nothing that only claims the tag', () => {
    expect(isTextBlock({ type: 'text', text: 'hi' })).toBe(true);
    expect(isTextBlock({ type: 'text', text: '' })).toBe(true);
    expect(isTextBlock({ type: 'image' })).toBe(false);
    // Foreign blocks that claim the tag: one without text, one whose text is not a string.
    const untexted: ContentBlockLike = { type: 'text' };
    const numeric: ContentBlockLike = JSON.parse('{"type":"text","text":5}') as ContentBlockLike;
    expect(isTextBlock(untexted)).toBe(false);
    expect(isTextBlock(numeric)).toBe(false);
  });
});
