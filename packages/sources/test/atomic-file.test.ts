/**
 * Derived files are replaced atomically and never written through a link
 * planted at the temporary name: the link is removed, its target untouched.
 */
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { replaceFileAtomically } from '@sessref/sources';

const dir = mkdtempSync(join(tmpdir(), 'sessref-atomic-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('replaceFileAtomically', () => {
  it('writes the new content whole, creating the directory, and leaves no temporary file', () => {
    const file = join(dir, 'cache', 'index.json');
    expect(replaceFileAtomically(file, Buffer.from('one'))).toBe(true);
    expect(replaceFileAtomically(file, Buffer.from('two'))).toBe(true);
    expect(readFileSync(file, 'utf8')).toBe('two');
    expect(readdirSync(join(dir, 'cache'))).toEqual(['index.json']);
  });

  it('never writes through a symbolic link planted at the temporary name', () => {
    const file = join(dir, 'planted', 'index.json');
    mkdirSync(join(dir, 'planted'));
    const victim = join(dir, 'victim.txt');
    writeFileSync(victim, 'keep me');
    symlinkSync(victim, `${file}.${process.pid}.tmp`);
    expect(replaceFileAtomically(file, Buffer.from('saved'))).toBe(true);
    expect(readFileSync(victim, 'utf8')).toBe('keep me');
    expect(readFileSync(file, 'utf8')).toBe('saved');
    expect(lstatSync(file).isSymbolicLink()).toBe(false);
    expect(existsSync(`${file}.${process.pid}.tmp`)).toBe(false);
  });

  it('reports a file it cannot write, leaving nothing behind', () => {
    const blocker = join(dir, 'blocker');
    writeFileSync(blocker, 'a file where a directory should be');
    expect(replaceFileAtomically(join(blocker, 'index.json'), Buffer.from('x'))).toBe(false);
    expect(readFileSync(blocker, 'utf8')).toBe('a file where a directory should be');
  });
});
