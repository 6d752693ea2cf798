/**
 * The one rule every derived file is read and written by (#32 item 1): a
 * file that is there but cannot be believed is refused with why, never
 * thrown, and what is written reads back as written.
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { readDerivedFile, writeDerivedFile, type DerivedFileKind } from '../src/index.js';

const dir = mkdtempSync(join(tmpdir(), 'sessref-derived-'));
chmodSync(dir, 0o700);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const kind: DerivedFileKind = { name: 'test index', identity: { version: 2, root: '/r' }, maxBytes: 1024 };
let files = 0;
const file = () => join(dir, `file-${(files += 1)}.json`);

describe('readDerivedFile', () => {
  it('reads back what writeDerivedFile wrote, its identity beside the body', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }).filter((key) => key !== 'version' && key !== 'root' && key !== '__proto__'), fc.jsonValue(), { maxKeys: 4 }), (body) => {
        const path = file();
        expect(writeDerivedFile(path, { ...kind, maxBytes: 1 << 20 }, body)).toBe(true);
        const read = readDerivedFile(path, { ...kind, maxBytes: 1 << 20 });
        expect(read).toEqual({ state: 'read', document: JSON.parse(JSON.stringify({ ...body, version: 2, root: '/r' })), bytes: readFileSync(path) });
      }),
      { numRuns: 50 },
    );
  });

  it('is absent where nothing is, and refuses with why what cannot be believed', () => {
    expect(readDerivedFile(join(dir, 'none.json'), kind)).toEqual({ state: 'absent' });
    const cases: [string, string | Buffer, RegExp][] = [
      ['not JSON', 'nope{', /JSON/],
      ['an array', '[1,2]', /not a saved test index/],
      ['another version', JSON.stringify({ version: 3, root: '/r' }), /of version 3, not 2/],
      ['another root', JSON.stringify({ version: 2, root: '/elsewhere' }), /of root "\/elsewhere", not "\/r"/],
      ['too large', `{"version":2,"root":"/r","pad":"${'x'.repeat(2000)}"}`, /./],
    ];
    for (const [what, content, why] of cases) {
      const path = file();
      writeFileSync(path, content);
      const read = readDerivedFile(path, kind);
      expect(read.state, what).toBe('refused');
      expect(read.state === 'refused' ? read.why : '', what).toMatch(why);
    }
    const directory = file();
    mkdirSync(directory);
    expect(readDerivedFile(directory, kind)).toMatchObject({ state: 'refused', why: expect.stringMatching(/directory/) });
  });

  it('refuses a file in a directory others may write into, whatever it holds', () => {
    const open = join(dir, 'open');
    mkdirSync(open, { mode: 0o777 });
    chmodSync(open, 0o777);
    const path = join(open, 'index.json');
    writeFileSync(path, JSON.stringify({ version: 2, root: '/r' }));
    expect(readDerivedFile(path, kind)).toMatchObject({ state: 'refused', why: expect.stringMatching(/^its directory /) });
    expect(writeDerivedFile(path, kind, {})).toBe(false);
  });
});
