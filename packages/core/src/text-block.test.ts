import { describe, expect, it } from 'vitest';
import { isTextBlock } from './text-block.js';
import type { ContentBlockLike } from './types.js';

describe('isTextBlock', () => {
  it('accepts a text block and nothing that only claims the tag', () => {
    expect(isTextBlock({ type: 'text', text: 'hi' })).toBe(true);
    expect(isTextBlock({ type: 'text', text: '' })).toBe(true);
    expect(isTextBlock({ type: 'image' })).toBe(false);
    expect(isTextBlock({ type: 'text' } as ContentBlockLike)).toBe(false);
    expect(isTextBlock({ type: 'text', text: 5 } as unknown as ContentBlockLike)).toBe(false);
  });
});
