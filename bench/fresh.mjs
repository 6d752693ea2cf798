/**
 * Suite 7's plan: the roots, the environment and the command lines a fresh `sessref` is timed on
 * (suites/fresh.mjs times them). A demo root seeded by `sessref seed`, the discovery corpora of
 * 2,000 and 10,000 sessions, and a copy of the 2,000 with one corrupt and one v5 log beside them.
 * Each root gets its own cache directory (warm after the suite's warm-up run) and a HOME holding
 * no other agent, so every figure is the dsh root's alone.
 */
import { Buffer } from 'node:buffer';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { zstdCompressSync } from 'node:zlib';
import { CACHE_DIR } from './lib/cache.mjs';
import { progress, runSuite } from './lib/child.mjs';
import { DISCOVERY, FRESH } from './plan.mjs';

const BIN = fileURLToPath(new URL('../packages/cli/bin/sessref.js', import.meta.url));
const BARE_WALK = fileURLToPath(new URL('./lib/bare-walk.mjs', import.meta.url));
const DIRECTORY = join(CACHE_DIR, 'fresh');
/** A little longer than a file must be left alone before sessref trusts a kept listing of its root. */
const SETTLE_MS = 2_100;

/** A mention of `id` as the composer writes it. */
const mention = (id) => `@[${id}](dsh-session:${Buffer.from(JSON.stringify(id)).toString('base64url')})`;

export async function runFresh(corpusRoot) {
  mkdirSync(DIRECTORY, { recursive: true });
  const home = join(DIRECTORY, 'home');
  mkdirSync(home, { recursive: true });
  const env = (name) => ({ HOME: home, SESSREF_CACHE_DIR: join(DIRECTORY, `cache-${name}`), DSH_HOME: join(home, '.dsh'), NO_COLOR: '1' });
  const demo = demoRoot();
  const demoCases = [
    ['--version', ['--version']],
    ['mention', ['mention', 'oauth-migration', '--root', demo]],
    ['list', ['list', '--root', demo]],
    ['show', ['show', 'oauth-migration', '--root', demo]],
    // A word the demo's conversations hold (after their checkpoints), so the search labels and excerpts a hit.
    ['search (warm)', ['search', 'release', '--root', demo]],
    ['prepare', ['prepare', '--root', demo, '--target', 'scratchpad', `Recap ${mention('oauth-migration')}`]],
  ].map(([name, args]) => ({ name, args, env: env('demo') }));
  progress('suite 7: the demo root');
  const results = { demo: await runCases('demo', demoCases), corpora: [] };
  for (const count of FRESH.counts) {
    const root = corpusRoot({ count, messages: DISCOVERY.defaultMessages });
    await runSuite('corpus', ['--root', root, '--count', count, '--messages', DISCOVERY.defaultMessages]);
    const cases = [
      { name: 'list', args: ['list', '--root', root], env: env(`clean-${count}`) },
      { name: 'search (warm)', args: ['search', 'migration', '--root', root], env: env(`clean-${count}`) },
    ];
    if (count === FRESH.counts[0]) cases.push({ name: 'list, one corrupt and one v5 log', args: ['list', '--root', damagedCopy(root)], env: env(`damaged-${count}`) });
    cases.push({ name: 'bare walk', script: BARE_WALK, args: [root] });
    progress(`suite 7: ${count} sessions`);
    results.corpora.push({ count, messages: DISCOVERY.defaultMessages, cases: await runCases(`corpus-${count}`, cases) });
  }
  results.firstSearch = await firstSearches(corpusRoot);
  progress('suite 7: sessref mcp, spawn to the first completion');
  results.mcp = await runSuite('fresh', ['--mcp', demo, '--runs', FRESH.runs]);
  return results;
}

/**
 * The first search of each planned root, every derived file built by that one command, beside
 * what building a content index otherwise costs, in this run (FRESH.firstSearch): dsh's own FTS5
 * backend over the same root (suites/search.mjs --mode dsh), or sessref's index fed generated
 * sessions of the same shape directly, with no log to read (suites/search-index.mjs --mode build).
 */
async function firstSearches(corpusRoot) {
  const results = [];
  for (const { count, runs, beside } of FRESH.firstSearch) {
    const root = corpusRoot({ count, messages: DISCOVERY.defaultMessages });
    progress(`suite 7: the first search of ${count} sessions, beside ${beside === 'dsh' ? "dsh's FTS5 build" : "sessref's index fed directly"}`);
    const cli = await runSuite('fresh', ['--first-search', root, '--cache', join(DIRECTORY, `first-search-${count}`), '--runs', runs]);
    const index = join(DIRECTORY, `first-search-${beside}-${count}.sqlite`);
    const baseline =
      beside === 'dsh'
        ? await runSuite('search', ['--mode', 'dsh', '--build', 1, '--root', root, '--index', index, '--runs', 1])
        : await runSuite('search-index', ['--mode', 'build', '--count', count, '--index', index, '--runs', 1]);
    rmSync(index, { force: true });
    results.push({ count, beside, cli, baselineMs: baseline.buildMs });
  }
  return results;
}

async function runCases(name, cases) {
  // A root written moments ago (a new corpus, the damaged copy) is listed in full until its files are two seconds old (see
  // rootFingerprint): waited for, so the warm-up keeps the listing every timed run of an unchanged root then answers from.
  await sleep(SETTLE_MS);
  const file = join(DIRECTORY, `${name}.cases.json`);
  writeFileSync(file, JSON.stringify(cases));
  return runSuite('fresh', ['--cases', file, '--runs', FRESH.runs]);
}

/** The demo data set, seeded once by `sessref seed` into an empty root. */
function demoRoot() {
  const root = join(DIRECTORY, 'demo');
  if (existsSync(root) && readdirSync(root).length > 0) return root;
  mkdirSync(root, { recursive: true });
  execFileSync(process.execPath, [BIN, 'seed', '--root', root], { stdio: 'ignore', env: { ...process.env, HOME: join(DIRECTORY, 'home') } });
  return root;
}

/** A copy of `root` with a session whose log is not Zstandard and one written as generation v5 (a dsh newer than sessref knows). */
function damagedCopy(root) {
  const copy = join(DIRECTORY, 'damaged-2000');
  rmSync(copy, { recursive: true, force: true });
  cpSync(root, copy, { recursive: true });
  const project = join(copy, readdirSync(copy).find((name) => name.startsWith('--')));
  mkdirSync(join(project, 'damaged-corrupt'));
  writeFileSync(join(project, 'damaged-corrupt', 'session.jsonl.zstd'), 'these bytes are no Zstandard frame');
  mkdirSync(join(project, 'damaged-v5'));
  const header = `${JSON.stringify({ type: 'session', version: 5, id: 'damaged-v5', createdAt: 1, delegationDepth: 0, isSeeded: false })}\n`;
  writeFileSync(join(project, 'damaged-v5', 'session.v5.jsonl.zstd'), zstdCompressSync(Buffer.from(header)));
  return copy;
}
