/**
 * A root's fingerprint (reading/root-fingerprint.ts), what a kept listing is
 * trusted by: two walks of an unchanged root spell it alike, and any change
 * a listing could show (a session directory or a file in one added or
 * removed, a log appended to, replaced or renamed) spells it otherwise. Each
 * walk goes through its own directory listings, as a new process would.
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { rootFingerprint } from '@sessref/dsh/reading';
import { DirectoryListings } from '@sessref/platform';
import { appendFileSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const dir = mkdtempSync(join(tmpdir(), 'sessref-root-fingerprint-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A root: project directories of session directories, each holding files of some bytes. */
type Tree = Record<string, Record<string, Record<string, string>>>;

const name = fc.stringMatching(/^[a-z0-9][a-z0-9._-]{0,11}$/);
const files = fc.dictionary(fc.constantFrom('session.jsonl.zstd', 'session.v4.jsonl.zstd', 'session.v5.jsonl.zstd', 'session.jsonl.zstd.tmp', 'notes'), fc.string({ maxLength: 40 }), { maxKeys: 3 });
const tree: fc.Arbitrary<Tree> = fc.dictionary(name.map((project) => `--${project}--`), fc.dictionary(name, files, { minKeys: 1, maxKeys: 4 }), { minKeys: 1, maxKeys: 3 });

let roots = 0;
function written(shape: Tree): string {
  const root = join(dir, `root-${(roots += 1)}`);
  for (const [project, sessions] of Object.entries(shape)) {
    for (const [session, contents] of Object.entries(sessions)) {
      mkdirSync(join(root, project, session), { recursive: true });
      for (const [file, text] of Object.entries(contents)) writeFileSync(join(root, project, session, file), text);
    }
  }
  return root;
}

/** The fingerprint as a new process would take it. */
const fingerprint = (root: string) => rootFingerprint(root, new DirectoryListings()).text;

/** Each change a listing could show, made to one session directory of the root. */
const changes: Record<string, (session: string) => void> = {
  'a file added': (session) => writeFileSync(join(session, 'session.v9.jsonl.zstd'), 'new'),
  'a log appended to': (session) => (mkdirSync(session, { recursive: true }), appendFileSync(join(session, 'session.jsonl.zstd'), 'more')),
  'a log replaced': (session) => {
    writeFileSync(join(session, 'replacement'), 'x');
    renameSync(join(session, 'replacement'), join(session, 'session.jsonl.zstd'));
  },
  'a file renamed': (session) => {
    writeFileSync(join(session, 'a'), 'x');
    renameSync(join(session, 'a'), join(session, 'b'));
  },
  'the session directory removed': (session) => rmSync(session, { recursive: true }),
  'a session directory added': (session) => mkdirSync(`${session}-new`),
};

describe('a root fingerprint', () => {
  it('is the same for two walks of an unchanged root (property)', () => {
    fc.assert(
      fc.property(tree, (shape) => {
        const root = written(shape);
        expect(fingerprint(root)).toBe(fingerprint(root));
      }),
      { numRuns: 40 },
    );
  });

  it('changes with every change a listing could show (property)', () => {
    fc.assert(
      fc.property(tree, fc.constantFrom(...Object.keys(changes)), fc.nat(), (shape, change, pick) => {
        const root = written(shape);
        const before = fingerprint(root);
        const sessions = Object.entries(shape).flatMap(([project, inProject]) => Object.keys(inProject).map((session) => join(root, project, session)));
        changes[change]!(sessions[pick % sessions.length]!);
        expect(fingerprint(root)).not.toBe(before);
      }),
      { numRuns: 60 },
    );
  });

  it('is settled only once no file under the root changed for two seconds', () => {
    const root = written({ '--app--': { one: { 'session.jsonl.zstd': 'x' } } });
    expect(rootFingerprint(root, new DirectoryListings()).settled).toBe(false);
    expect(rootFingerprint(root, new DirectoryListings(), Date.now() + 2_500).settled).toBe(true);
  });

  it('names each session directory, one that holds no file too', () => {
    const root = written({ '--app--': { open: { 'session.jsonl.zstd': 'x' } } });
    const before = fingerprint(root);
    expect(before).toContain('D--app--/open\u0000');
    rmSync(join(root, '--app--', 'open', 'session.jsonl.zstd'));
    expect(fingerprint(root)).toBe('D--app--/open\u0000');
  });
});
