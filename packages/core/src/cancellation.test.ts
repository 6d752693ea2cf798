import { describe, expect, it, vi } from 'vitest';
import { expectRejection } from '../test/errors.js';
import { never } from '../test/memory-storage.js';
import { raceCancellation, throwIfCancelled } from './cancellation.js';
import { SESSION_REFERENCE_ERROR_CODES, SessionReferenceError, isSessionReferenceError } from './errors.js';

describe('raceCancellation', () => {
  it('returns the work itself when there is no signal', () => {
    const work = Promise.resolve(1);
    expect(raceCancellation(work, undefined)).toBe(work);
  });

  it('settles like the work while the signal stays quiet, then drops its abort listener', async () => {
    const signal = new AbortController().signal;
    const remove = vi.spyOn(signal, 'removeEventListener');
    await expect(raceCancellation(Promise.resolve('value'), signal)).resolves.toBe('value');
    const failure = new Error('work failed');
    await expect(raceCancellation(Promise.reject(failure), signal)).rejects.toBe(failure);
    expect(remove).toHaveBeenCalledTimes(2);
  });

  it('rejects with CANCELLED, keeping the abort reason, when aborted before the work settles', async () => {
    const controller = new AbortController();
    const racing = raceCancellation(never(), controller.signal);
    controller.abort('reason');
    const error = await expectRejection(racing, 'SESSION_REFERENCE_CANCELLED');
    expect(error.cause).toBe('reason');
  });

  it('rejects at once, never throwing, when the signal has already aborted; the message names the work', async () => {
    const controller = new AbortController();
    controller.abort('reason');
    const racing = raceCancellation(never(), controller.signal, 'content search');
    const error = await expectRejection(racing, 'SESSION_REFERENCE_CANCELLED');
    expect([error.message, error.cause]).toEqual(['content search was cancelled', 'reason']);
    expect(() => throwIfCancelled(controller.signal)).toThrow('session reference preparation was cancelled');
    expect(() => throwIfCancelled(new AbortController().signal)).not.toThrow();
  });

  it('prefers cancellation over a failure that comes after the abort', async () => {
    const controller = new AbortController();
    let fail!: (error: Error) => void;
    const racing = raceCancellation(new Promise<never>((_resolve, reject) => (fail = reject)), controller.signal);
    controller.abort();
    fail(new Error('late failure'));
    await expectRejection(racing, 'SESSION_REFERENCE_CANCELLED');
  });
});

describe('SessionReferenceError', () => {
  it('carries a stable code, its name and an optional cause', () => {
    const error = new SessionReferenceError('message', 'SESSION_REFERENCE_TOO_MANY', { cause: 'why' });
    expect(error).toBeInstanceOf(Error);
    expect(isSessionReferenceError(error)).toBe(true);
    expect(isSessionReferenceError(new Error('other'))).toBe(false);
    expect([error.name, error.code, error.message, error.cause]).toEqual(['SessionReferenceError', 'SESSION_REFERENCE_TOO_MANY', 'message', 'why']);
  });

  it('lists the contract’s seven codes, then the two of content discovery and the two of excerpts', () => {
    expect(SESSION_REFERENCE_ERROR_CODES).toEqual([
      'SESSION_REFERENCE_INVALID_CONFIG',
      'SESSION_REFERENCE_INVALID_REFERENCE',
      'SESSION_REFERENCE_SELF_REFERENCE',
      'SESSION_REFERENCE_TOO_MANY',
      'SESSION_REFERENCE_READ_FAILED',
      'SESSION_REFERENCE_BUDGET_EXCEEDED',
      'SESSION_REFERENCE_CANCELLED',
      'SESSION_REFERENCE_INVALID_QUERY',
      'SESSION_REFERENCE_SEARCH_DISABLED',
      'SESSION_REFERENCE_INVALID_EXCERPT',
      'SESSION_REFERENCE_EXCERPT_NOT_FOUND',
    ]);
  });
});
