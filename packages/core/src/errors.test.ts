import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SessionReferenceError, errorCode } from './errors.js';

describe('errorCode', () => {
  it('reads a string code from any error-like value', () => {
    expect(errorCode(Object.assign(new Error('gone'), { code: 'ENOENT' }))).toBe('ENOENT');
    expect(errorCode(new SessionReferenceError('no', 'SESSION_REFERENCE_CANCELLED'))).toBe('SESSION_REFERENCE_CANCELLED');
    expect(errorCode({ code: 'EPERM' })).toBe('EPERM');
  });

  it('is undefined for values without a string code, and never throws (property)', () => {
    const trap = new Proxy({}, { has: () => { throw new Error('trap'); }, get: () => { throw new Error('trap'); } });
    for (const value of [undefined, null, 'ENOENT', 42, new Error('plain'), { code: 7 }, trap]) expect(errorCode(value)).toBeUndefined();
    fc.assert(
      fc.property(fc.anything(), (value) => {
        const code = errorCode(value);
        expect(code === undefined || typeof code === 'string').toBe(true);
      }),
    );
  });
});
