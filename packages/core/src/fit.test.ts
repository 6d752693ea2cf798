import { describe, expect, it } from 'vitest';
import { fitSnapshot } from './fit.js';
import { projectConversation } from './projection.js';
import { retainReference } from './retention.js';
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
  it('is projection then retention under the budget', () => {
    const items = projectConversation(snapshot.messages);
    const fit = fitSnapshot({ sessionId: 'source', label: 'Source' }, snapshot, 200);
    expect(fit.items).toEqual(items);
    expect(fit.retained).toEqual(retainReference({ sessionId: 'source', label: 'Source', cwd: '/work', capturedThroughSeq: 7, items, maxBytes: 200 }));
    expect(fit.retained?.stats).toMatchObject({ originalMessages: 2, truncated: true });
  });

  it('keeps the projection when nothing fits', () => {
    const fit = fitSnapshot({ sessionId: 'source', label: 'Source' }, snapshot, 10);
    expect(fit.items).toHaveLength(2);
    expect(fit.retained).toBeUndefined();
  });
});
