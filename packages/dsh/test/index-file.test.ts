/**
 * The title index's saved file: what `saveIndex` writes, `loadIndex` reads back
 * exactly; a file of another version or root is ignored, and an entry of
 * another shape is left out (its session is read again from its log).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { loadIndex, saveIndex, type IndexEntry } from '../src/title-index/index-file';

const dir = mkdtempSync(join(tmpdir(), 'sessref-index-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const entry = (id: string, extra: Partial<IndexEntry> = {}): IndexEntry => ({ revision: `1:2:3:${id}`, header: { id, createdAt: 7 }, ...extra });

describe('the saved title index', () => {
  it('reads back what it wrote (property)', () => {
    const entries = fc.uniqueArray(
      fc.record({
        id: fc.string({ minLength: 1, maxLength: 12 }),
        createdAt: fc.integer(),
        cwd: fc.option(fc.string(), { nil: undefined }),
        title: fc.option(fc.string(), { nil: undefined }),
        unreadable: fc.boolean(),
      }),
      { selector: (value) => value.id, maxLength: 8 },
    );
    fc.assert(
      fc.property(entries, (values) => {
        const file = join(dir, 'round-trip.json');
        const map = new Map(
          values.map(({ id, createdAt, cwd, title, unreadable }) => [
            id,
            entry(id, { header: { id, createdAt, ...(cwd === undefined ? {} : { cwd }) }, ...(title === undefined ? {} : { title }), ...(unreadable ? { unreadable: true } : {}) }),
          ]),
        );
        saveIndex(file, '/root', map);
        expect(loadIndex(file, '/root')).toEqual(map);
      }),
      { numRuns: 50 },
    );
  });

  it('ignores a file of another root or version, and leaves out entries of another shape', () => {
    const file = join(dir, 'shapes.json');
    saveIndex(file, '/root', new Map([['a', entry('a')]]));
    expect(loadIndex(file, '/elsewhere').size).toBe(0);
    const saved = JSON.parse(readFileSync(file, 'utf8')) as { entries: Record<string, unknown> };
    writeFileSync(file, JSON.stringify({ ...saved, version: 99 }));
    expect(loadIndex(file, '/root').size).toBe(0);

    const entries = {
      good: entry('good', { title: 'Kept' }),
      'other-id': entry('not-other-id'),
      'no-revision': { header: { id: 'no-revision', createdAt: 1 } },
      'bad-time': { revision: 'r', header: { id: 'bad-time', createdAt: 'yesterday' } },
      'bad-title': { revision: 'r', header: { id: 'bad-title', createdAt: 1 }, title: 42 },
      'bad-flag': { revision: 'r', header: { id: 'bad-flag', createdAt: 1 }, unreadable: 'yes' },
      'not-an-object': 'entry',
    };
    writeFileSync(file, JSON.stringify({ ...saved, entries }));
    expect([...loadIndex(file, '/root')]).toEqual([['good', entries.good]]);
    writeFileSync(file, '[1, 2, 3]');
    expect(loadIndex(file, '/root').size).toBe(0);
  });
});
