import { describe, expect, it } from 'vitest';
import { fitSnapshot } from './fit.js';
import type { SurfaceSnapshot } from './types.js';

const snapshot: SurfaceSnapshot = {
  session: { id: 'source', createdAt: 1, cwd: '/work' },
  capturedThroughSeq: 7,
  messages: [
    { role: 'user', origin: 'direct-user', content: [{ type: 'text', text: 'question '.repeat(40) }] },
    { role: 'tool', origin: 'other', content: [{ type: 'text', text: 'tool output' }] },
    { role: 'assistant', origin: 'other', content: [{ type: 'text', text: 'answer' }] },
  ],
};

describe('fitSnapshot', () => {
  it('projects the snapshot, then retains the newest items that fit the budget', () => {
    const fit = fitSnapshot({ sessionId: 'source', label: 'Source' }, snapshot, 200);
    expect(fit.items).toEqual([
      { role: 'user', text: 'question '.repeat(40), checkpoint: false },
      { role: 'assistant', text: 'answer', checkpoint: false },
    ]);
    expect(fit.retained?.data).toEqual({ sessionId: 'source', label: 'Source', cwd: '/work', capturedThroughSeq: 7, conversation: [{ role: 'assistant', text: 'answer' }] });
    expect(fit.retained?.bytes).toBe(fit.retained?.json.length);
    expect(fit.retained?.stats).toEqual({ compacted: false, originalMessages: 2, retainedMessages: 1, omittedMessages: 1, omittedBytes: 360, truncated: true });
  });

  it('keeps the projection when nothing fits', () => {
    const fit = fitSnapshot({ sessionId: 'source', label: 'Source' }, snapshot, 10);
    expect(fit.items).toHaveLength(2);
    expect(fit.retained).toBeUndefined();
  });
});
