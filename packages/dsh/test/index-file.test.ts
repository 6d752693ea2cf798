/**
 * The title index's saved file: what `saveIndex` writes, `loadIndex` reads back
 * exactly, and `lookupIndex` finds entry by entry in its lines; a file of
 * another version or root is ignored, and an entry of another shape is left
 * out (its session is read again from its log).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { loadIndex, lookupIndex, saveIndex, type IndexEntry } from '../src/title-index/index-file';

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
        expect(loadIndex(file, '/root').entries).toEqual(map);
      }),
      { numRuns: 50 },
    );
  });

  it('finds each asked entry in its line as the whole file reads it, and the file is the same JSON document (property)', () => {
    // Ids of any text: quotes, backslashes, newlines, astral characters (their UTF-8 bytes order the lines).
    const id = fc.string({ unit: 'binary', minLength: 1, maxLength: 6 });
    fc.assert(
      fc.property(fc.uniqueArray(id, { maxLength: 12 }), fc.array(id, { maxLength: 6 }), fc.boolean(), (ids, others, empty) => {
        const file = join(dir, 'lookup.json');
        const map = new Map(ids.map((id, at) => [id, entry(id, at % 2 === 0 ? { title: `title of ${id}` } : { unreadable: true })]));
        const saved = empty ? new Map<string, IndexEntry>() : map;
        saveIndex(file, '/root', saved);
        expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ version: 1, root: '/root', entries: Object.fromEntries(saved) });
        expect(loadIndex(file, '/root')).toEqual({ entries: saved, laidOut: true });
        const asked = [...ids, ...others];
        expect(lookupIndex(file, '/root', asked)).toEqual(new Map(asked.flatMap((id) => (saved.has(id) ? [[id, saved.get(id)!] as const] : []))));
      }),
      { numRuns: 100 },
    );
  });

  it('looks up nothing in a file laid out otherwise (an earlier build\'s, or one edited), which loads whole; an edited line gives no entry', () => {
    const file = join(dir, 'layouts.json');
    const map = new Map(['a', 'b', 'c'].map((id) => [id, entry(id, { title: `title of ${id}` })]));
    saveIndex(file, '/root', map);
    const laidOut = readFileSync(file, 'utf8');
    expect(lookupIndex(file, '/elsewhere', ['a'])).toBeUndefined();
    // One line, as JSON.stringify (and builds before this layout) write it.
    writeFileSync(file, JSON.stringify(JSON.parse(laidOut)));
    expect(lookupIndex(file, '/root', ['a'])).toBeUndefined();
    expect(loadIndex(file, '/root')).toEqual({ entries: map, laidOut: false });
    // b's line damaged in place, the layout kept: a and c are still found, b is not (the whole file no longer parses).
    writeFileSync(file, laidOut.replace(JSON.stringify(map.get('b')), '{"revision":'));
    expect(lookupIndex(file, '/root', ['a', 'b', 'c'])).toEqual(new Map([['a', map.get('a')], ['c', map.get('c')]]));
    expect(loadIndex(file, '/root').entries.size).toBe(0);
    // An entry of another shape in its line is no entry either.
    writeFileSync(file, laidOut.replace(JSON.stringify(map.get('b')), JSON.stringify({ ...map.get('b'), header: { id: 'not-b', createdAt: 7 } })));
    expect(lookupIndex(file, '/root', ['b'])).toEqual(new Map());
  });

  it('ignores a file of another root or version, and leaves out entries of another shape', () => {
    const file = join(dir, 'shapes.json');
    saveIndex(file, '/root', new Map([['a', entry('a')]]));
    expect(loadIndex(file, '/elsewhere').entries.size).toBe(0);
    const saved = JSON.parse(readFileSync(file, 'utf8')) as { entries: Record<string, unknown> };
    writeFileSync(file, JSON.stringify({ ...saved, version: 99 }));
    expect(loadIndex(file, '/root').entries.size).toBe(0);

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
    expect([...loadIndex(file, '/root').entries]).toEqual([['good', entries.good]]);
    writeFileSync(file, '[1, 2, 3]');
    expect(loadIndex(file, '/root').entries.size).toBe(0);
  });
});
