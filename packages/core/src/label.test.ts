import { describe, expect, it } from 'vitest';
import { formatSessionReferenceMention } from './uri.js';
import { labelOf } from './label.js';

describe('labelOf', () => {
  it('is the title, else the id; an empty title is still a title', () => {
    expect(labelOf('s-1', 'Release plan')).toBe('Release plan');
    expect(labelOf('s-1', undefined)).toBe('s-1');
    expect(labelOf('s-1', '')).toBe('');
  });

  it('is the label a mention without one carries', () => {
    expect(formatSessionReferenceMention({ sessionId: 's-1' })).toBe(formatSessionReferenceMention({ sessionId: 's-1', label: labelOf('s-1', undefined) }));
  });
});
