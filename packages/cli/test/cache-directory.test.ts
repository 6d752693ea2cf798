/**
 * Where the CLI keeps its derived files (title index, content index, the
 * other agents' listing caches) when `XDG_CACHE_HOME` is set (issue #37,
 * item 3): an absolute one is used; a relative one is ignored, as the XDG
 * Base Directory specification says, so nothing lands under the folder the
 * command runs in.
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { emptyRoot, ok, removeTemps, requireBuild, tempDir } from './support';

const CLAUDE_ID = 'ae4a77f8-aedd-4bc1-888f-c94edc91af04';
const SAMPLE = fileURLToPath(new URL(`../../../../shared/cross-harness-samples/claude-code/spotter/${CLAUDE_ID}.jsonl`, import.meta.url));

let root: string;
let home: string;

beforeAll(async () => {
  requireBuild();
  root = await emptyRoot();
  await ok(['seed', '--root', root]);
  home = await tempDir('sessref-cache-home-');
  mkdirSync(join(home, '.claude', 'projects', '-work-app'), { recursive: true });
  copyFileSync(SAMPLE, join(home, '.claude', 'projects', '-work-app', `${CLAUDE_ID}.jsonl`));
});

afterAll(removeTemps);

/** `list` and `search` from `cwd` with `XDG_CACHE_HOME` as given and no `SESSREF_CACHE_DIR`: the files of the cache directory after. */
async function derivedFiles(cwd: string, xdgCacheHome: string, cacheDirectory: string): Promise<string[]> {
  const env = { HOME: home, XDG_CACHE_HOME: xdgCacheHome, SESSREF_CACHE_DIR: undefined };
  await ok(['list', '--root', root], { cwd, env });
  await ok(['search', 'flaky', '--root', root], { cwd, env });
  return existsSync(cacheDirectory) ? readdirSync(cacheDirectory).sort() : [];
}

const DERIVED = [expect.stringMatching(/^content-/), expect.stringMatching(/^listing-claude-code-/), expect.stringMatching(/^titles-/)];

it('ignores a relative XDG_CACHE_HOME: nothing is written under the current folder, the cache is ~/.cache/sessref', async () => {
  const cwd = await tempDir('sessref-cache-cwd-');
  const files = await derivedFiles(cwd, 'relative-cache', join(home, '.cache', 'sessref'));
  expect(readdirSync(cwd)).toEqual([]);
  expect(files).toEqual(expect.arrayContaining(DERIVED));
});

it('uses an absolute XDG_CACHE_HOME', async () => {
  const cwd = await tempDir('sessref-cache-cwd-');
  const xdg = await tempDir('sessref-cache-xdg-');
  const files = await derivedFiles(cwd, xdg, join(xdg, 'sessref'));
  expect(readdirSync(cwd)).toEqual([]);
  expect(files).toEqual(expect.arrayContaining(DERIVED));
});
