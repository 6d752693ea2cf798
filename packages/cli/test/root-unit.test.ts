/**
 * The root checks where a spawned binary cannot reach: a directory the
 * current user may not read (the superuser reads any, so the binary test of
 * it is skipped when the suite runs as root). `readdirSync` fails here as the
 * kernel would fail it for another user.
 */
import type * as NodeFs from 'node:fs';
import { describe, expect, it, vi } from 'vitest';

vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof NodeFs>();
  const readdirSync = ((path: unknown, ...rest: unknown[]) => {
    if (String(path).endsWith('/locked')) throw Object.assign(new Error(`EACCES: permission denied, scandir '${String(path)}'`), { code: 'EACCES' });
    return (fs.readdirSync as (...args: unknown[]) => unknown)(path, ...rest);
  }) as typeof fs.readdirSync;
  const statSync = ((path: unknown, ...rest: unknown[]) => {
    if (String(path).endsWith('/locked')) return { isDirectory: () => true };
    return (fs.statSync as (...args: unknown[]) => unknown)(path, ...rest);
  }) as typeof fs.statSync;
  return { ...fs, default: { ...fs, readdirSync, statSync }, readdirSync, statSync };
});

const { checkRoot } = await import('../src/root.js');

describe('an unreadable root', () => {
  it('is ROOT_UNREADABLE, exit 2, one line naming the root and where it came from', () => {
    let thrown: unknown;
    try {
      checkRoot({ path: '/srv/locked', source: 'SESSREF_ROOT', reason: '$SESSREF_ROOT' });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({
      code: 'ROOT_UNREADABLE',
      exitCode: 2,
      message: 'the session root /srv/locked ($SESSREF_ROOT) cannot be read: permission denied',
    });
  });
});
