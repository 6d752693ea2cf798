/**
 * Every command block of the READMEs runs (see scripts/readme-blocks.mjs).
 * Transcripts (`$ command` then its output) run here, command by command,
 * with the built binary as `sessref`, against a fresh copy of the demo root
 * at /tmp/x (SESSREF_ROOT) for each block; `/tmp/` stands for a private
 * temporary directory. Output must match what the README shows, up to ages,
 * timestamps, creation times, random ids, compressed sizes and column
 * padding; a line that is only `…` stands for any number of lines. Shell blocks run verbatim in a
 * fresh clone through scripts/readme-shell.mjs (CI); here it is checked that
 * each one is either run there or says why not.
 */
import { spawnSync } from 'node:child_process';
import { chmod, cp, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allBlocks, transcriptSteps, type ReadmeBlock } from '../../../scripts/readme-blocks.mjs';
import { BIN, emptyRoot, ok, removeTemps, requireBuild, tempDir } from './support';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const READMES = allBlocks(REPO);
let seeded: string;

beforeAll(async () => {
  requireBuild();
  seeded = await emptyRoot('sessref-readme-seed-');
  await ok(['seed', '--root', seeded]);
});

afterAll(removeTemps);

/** What may differ between two runs of the same command. */
function normalize(lines: readonly string[]): string[] {
  const out = lines.map((line) =>
    line
      .replace(/\b\d+[smhd] ago\b/g, '<age>')
      .replace(/\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z\b/g, '<time>')
      .replace(/("createdAt": )\d+/g, '$1<n>')
      .replace(/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g, '<uuid>')
      .replace(/\b(Untitled )[0-9a-f]{8}\b/g, '$1<id>')
      // A zstd log's size varies with the random ids inside it.
      .replace(/\b(incomplete write after byte )\d+/g, '$1<n>')
      .replace(/ {2,}/g, ' ')
      .trimEnd(),
  );
  while (out.length > 0 && out.at(-1) === '') out.pop();
  return out;
}

/** Whether `actual` reads as `expected`, where a line of just `…` matches any run of lines. */
function matches(actual: readonly string[], expected: readonly string[]): boolean {
  const memo = new Map<number, boolean>();
  const from = (i: number, j: number): boolean => {
    const key = i * (expected.length + 1) + j;
    const known = memo.get(key);
    if (known !== undefined) return known;
    let result: boolean;
    if (j === expected.length) result = i === actual.length;
    else if (expected[j]!.trim() === '…') result = from(i, j + 1) || (i < actual.length && from(i + 1, j));
    else result = i < actual.length && actual[i] === expected[j] && from(i + 1, j + 1);
    memo.set(key, result);
    return result;
  };
  return from(0, 0);
}

async function runTranscript(file: string, block: ReadmeBlock): Promise<void> {
  const base = await tempDir('sessref-readme-');
  await cp(seeded, join(base, 'x'), { recursive: true });
  for (const dir of ['bin', 'work', 'home']) await mkdir(join(base, dir));
  const shim = join(base, 'bin', 'sessref');
  await writeFile(shim, `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
  await chmod(shim, 0o755);
  const env: Record<string, string | undefined> = {
    ...process.env,
    PATH: `${join(base, 'bin')}:${process.env.PATH ?? ''}`,
    NO_COLOR: '1',
    SESSREF_ROOT: join(base, 'x'),
    SESSREF_CACHE_DIR: join(base, 'cache'),
    DSH_HOME: join(base, 'dsh'),
    HOME: join(base, 'home'),
  };
  const local = (text: string) => text.replaceAll('/tmp/', `${base}/`);
  const shell = (script: string) => spawnSync('bash', ['-c', `exec 2>&1\n${script}`], { cwd: join(base, 'work'), env, encoding: 'utf8' });
  if (block.before !== undefined) {
    const before = shell(`set -euo pipefail\n${local(block.before)}`);
    expect(before.status, `${file}:${block.line} before: ${before.stdout}`).toBe(0);
  }
  for (const step of transcriptSteps(block.body)) {
    const result = shell(local(step.command));
    const actual = normalize(result.stdout.replaceAll(`${base}/`, '/tmp/').split('\n'));
    const expected = normalize(step.output);
    if (!matches(actual, expected)) expect(actual.join('\n'), `${file}:${block.line}: $ ${step.command}`).toBe(expected.join('\n'));
  }
}

for (const { file, blocks } of READMES) {
  describe(file, () => {
    it('every command block is run, or says why not', () => {
      for (const block of blocks) {
        if (block.kind === 'other') continue;
        if (block.skip !== undefined) expect(block.skip.length, `${file}:${block.line}`).toBeGreaterThan(10);
        if (block.kind === 'shell') expect(block.before, `${file}:${block.line}: shell blocks run as written`).toBeUndefined();
      }
      // A block of commands in a language the runners do not know would run nowhere.
      for (const block of blocks) if (block.kind === 'other') expect(block.body.startsWith('$ '), `${file}:${block.line}`).toBe(false);
    });

    for (const block of blocks.filter((candidate) => candidate.kind === 'transcript')) {
      const name = `${file}:${block.line}: ${transcriptSteps(block.body)[0]!.command}`;
      if (block.skip !== undefined) it.skip(`${name} (not run: ${block.skip})`, () => {});
      else it(name, () => runTranscript(file, block));
    }
  });
}
