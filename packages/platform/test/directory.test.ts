/**
 * `listDirectory`, the walk every agent's reader lists its folders with:
 * what it names each entry (the path a listing cache and a watch key on)
 * and which entries it keeps.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listDirectory } from '@sessref/platform';

/** The temporary folder; `folder`, the agent's home in it, is what is listed. */
let home: string;
let folder: string;
beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'sessref-directory-'));
  folder = join(home, 'projects');
  mkdirSync(join(folder, 'a project'), { recursive: true });
  writeFileSync(join(folder, 'session.jsonl'), '');
  writeFileSync(join(folder, '.hidden'), '');
  writeFileSync(join(home, 'outside.jsonl'), '');
  symlinkSync(join(folder, 'session.jsonl'), join(folder, 'link in home.jsonl'));
  symlinkSync(join(home, 'outside.jsonl'), join(folder, 'link out.jsonl'));
  execFileSync('mkfifo', [join(folder, 'pipe')]);
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

/** A spelling of the folder at `path`: a segment as `./<it>` or `<it>/../<it>`, separators doubled, a trailing `/` or `/.`, or relative to the working directory. */
const spellingOf = (path: string) => {
  const count = path.split(sep).length;
  return fc
    .record({
      segments: fc.array(fc.constantFrom('as is', 'dot', 'there and back', 'doubled'), { minLength: count, maxLength: count }),
      trailing: fc.constantFrom('', sep, `${sep}.`),
      relativeToCwd: fc.boolean(),
    })
    .map(({ segments, trailing, relativeToCwd }) => {
      const parts = (relativeToCwd ? relative(process.cwd(), path) || '.' : path).split(sep);
      const spelled = parts.map((part, at) => {
        if (part === '' || part === '..' || part === '.') return part;
        if (segments[at] === 'dot') return `.${sep}${part}`;
        if (segments[at] === 'there and back') return `${part}${sep}..${sep}${part}`;
        return segments[at] === 'doubled' ? `${part}${sep}` : part;
      });
      return spelled.join(sep) + trailing;
    });
};

describe('listDirectory', () => {
  it('names each entry as join(dir, name) whatever the spelling of dir, and keeps files, folders and links inside the home only', () => {
    fc.assert(
      fc.property(spellingOf(folder), (dir) => {
        const listed = listDirectory(dir, folder);
        expect(listed.map((entry) => entry.path)).toEqual(listed.map((entry) => join(dir, entry.name)));
        expect(listed.map(({ name, kind }) => [name, kind])).toEqual([
          ['.hidden', 'file'],
          ['a project', 'directory'],
          ['link in home.jsonl', 'file'],
          ['session.jsonl', 'file'],
        ]);
      }),
      { numRuns: 60, seed: 31 },
    );
  });
});
