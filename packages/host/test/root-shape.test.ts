/**
 * A root's shape is checked once per hold of the process's listings: a
 * command that only reads checks it when it opens the root and again when it
 * lists, and under one hold the second check is the first one's answer (its
 * listings are the first look too). Without a hold, every check looks again.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PROCESS_LISTINGS } from '@sessref/platform';
import { RootFormatError, assertSupportedRoot } from '@sessref/dsh/reading';

const temp = mkdtempSync(join(tmpdir(), 'sessref-root-shape-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

/** A root with one session directory holding a zstd log. */
function supportedRoot(name: string): { root: string; session: string } {
  const root = join(temp, name);
  const session = join(root, '--work--', 'one');
  mkdirSync(session, { recursive: true });
  writeFileSync(join(session, 'session.jsonl.zstd'), '');
  return { root, session };
}

describe('assertSupportedRoot', () => {
  it('answers a second check under the same hold from the first, and looks again once the hold ends', () => {
    const { root, session } = supportedRoot('held');
    const release = PROCESS_LISTINGS.holdFirstLook();
    try {
      assertSupportedRoot(root);
      // An uncompressed log appears mid-run: the run's answer is still the root as it first saw it.
      writeFileSync(join(session, 'session.jsonl'), '');
      expect(() => assertSupportedRoot(root)).not.toThrow();
    } finally {
      release();
    }
    expect(() => assertSupportedRoot(root)).toThrow(RootFormatError);
  });

  it('looks again at every check without a hold', () => {
    const { root, session } = supportedRoot('unheld');
    assertSupportedRoot(root);
    writeFileSync(join(session, 'session.jsonl'), '');
    expect(() => assertSupportedRoot(root)).toThrow(RootFormatError);
  });

  it('keeps refusing under a hold: only a supported root is remembered', () => {
    const { root, session } = supportedRoot('refused');
    writeFileSync(join(session, 'session.jsonl'), '');
    const release = PROCESS_LISTINGS.holdFirstLook();
    try {
      expect(() => assertSupportedRoot(root)).toThrow(RootFormatError);
      expect(() => assertSupportedRoot(root)).toThrow(RootFormatError);
    } finally {
      release();
    }
  });
});
