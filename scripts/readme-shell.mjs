#!/usr/bin/env node
/**
 * Run every shell block of the READMEs verbatim in a fresh clone of this
 * repository (its committed HEAD), in README order, each with `bash -euo
 * pipefail` from the clone's root: what a new user types after cloning. A
 * block marked `<!-- docs-test: skip: reason -->` is listed with its reason
 * and not run (see readme-blocks.mjs). CI runs this after `npm test`.
 *
 * The blocks see a dsh home that does not exist (DSH_HOME), so no example
 * ever reads or writes the machine's own dsh sessions, and a private cache.
 *
 *   node scripts/readme-shell.mjs [--keep]    (--keep leaves the clone in place)
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { allBlocks } from './readme-blocks.mjs';

const repo = fileURLToPath(new URL('..', import.meta.url));
const keep = process.argv.includes('--keep');
const work = mkdtempSync(join(tmpdir(), 'sessref-readme-shell-'));
const clone = join(work, 'clone');

let failed = false;
try {
  execFileSync('git', ['clone', '--quiet', '--no-hardlinks', repo, clone], { stdio: 'inherit' });
  const env = { ...process.env, NO_COLOR: '1', DSH_HOME: join(work, 'dsh-home'), SESSREF_CACHE_DIR: join(work, 'cache') };
  delete env.SESSREF_ROOT;
  let ran = 0;
  for (const { file, blocks } of allBlocks(clone)) {
    for (const block of blocks) {
      if (block.kind !== 'shell') continue;
      const where = `${file}:${block.line}`;
      if (block.skip !== undefined) {
        console.log(`skip ${where}: ${block.skip}`);
        continue;
      }
      console.log(`run  ${where}\n${block.body.replace(/^/gm, '     ')}`);
      const result = spawnSync('bash', ['-euo', 'pipefail', '-c', block.body], { cwd: clone, env, stdio: 'inherit' });
      if (result.status !== 0) {
        console.error(`FAIL ${where}: exit ${result.status ?? result.signal}`);
        failed = true;
        break;
      }
      ran++;
    }
    if (failed) break;
  }
  if (!failed) console.log(`${ran} README shell blocks ran in a fresh clone`);
} finally {
  if (keep) console.log(`clone kept at ${clone}`);
  else rmSync(work, { recursive: true, force: true });
}
process.exitCode = failed ? 1 : 0;
