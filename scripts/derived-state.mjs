/**
 * Reproduces classes 3 and 4 of #25 in the checkout it is run from (copy it
 * into an older checkout's root to run it there; Node 22, built packages):
 *
 *   npx node scripts/derived-state.mjs 3   # a log replaced under a live host
 *   npx node scripts/derived-state.mjs 4   # a damaged, then a locked, search index under `sessref search`
 *
 * Class 3: a host booted as `sessref serve` boots it (bootHost, file caches,
 * file-system events) learns a session; its log is replaced (renamed over,
 * then copied in place) by another of the same id and creation time with the
 * old modification time put back; content search, a hit's label and the
 * catalog's title are asked again. The replacement's plugin-injected message
 * ("charlplant") must never be a hit. Prints one JSON line per step.
 *
 * Class 4: `sessref search` over a seeded root, after the search index file is
 * overwritten with random bytes (twice), then while another process holds an
 * exclusive lock on it. Prints each command's exit code, output and time.
 */
import { Buffer } from 'node:buffer';
import { spawn, spawnSync } from 'node:child_process';
import { randomFillSync } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Holds an exclusive lock on the SQLite file named by its argument, and says so. */
const HOLDER = `const { DatabaseSync } = require('node:sqlite');
const db = new DatabaseSync(process.argv[1]);
db.exec('PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE; CREATE TABLE IF NOT EXISTS held (x)');
process.stdout.write('held\\n');
setTimeout(() => {}, 120000);`;

const which = process.argv[2];
const scratch = mkdtempSync(join(tmpdir(), 'sessref-derived-state-'));
try {
  if (which === '3') await replacedLog();
  else if (which === '4') await searchIndex();
  else throw new Error('usage: derived-state.mjs 3|4');
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

async function replacedLog() {
  const { bootHost, createSession, appendExchange, appendInjected, endTurn, setTitle } = await import('@sessref/host');
  const ID = 'swapped';
  /** A root holding one version of the session; the path of its log. */
  const write = async (root, word) => {
    const ctx = await bootHost({ root });
    const session = createSession(ctx, { id: ID, cwd: '/work/app', createdAt: 1_700_000_000_000 });
    // The second version's injected plugin message takes the place (the seq) of the first version's first user message.
    if (word === 'charl') appendInjected(session, `Plugin note: ${word}plant is not for the model.`);
    appendExchange(session, { user: `Please check the ${word}word module.`, assistant: `The ${word}word module is fine.` });
    if (word !== 'charl') appendInjected(session, `Plugin note: ${word}plant is not for the model.`);
    appendExchange(session, { user: 'Anything else?', assistant: 'Nothing else.' });
    endTurn(session);
    setTitle(session, `Title ${word}`);
    await ctx.sessions.flush(session);
    await ctx.fiber.dispose();
    return join(root, readdirSync(root)[0], ID, 'session.jsonl.zstd');
  };
  for (const mode of ['rename', 'copy in place']) {
    const base = join(scratch, mode.replaceAll(' ', '-'));
    const live = await write(join(base, 'a'), 'alpha');
    const next = await write(join(base, 'b'), 'charl');
    // Whole seconds, so the replacement gets exactly the same modification time back.
    utimesSync(live, 1_700_000_000, 1_700_000_000);
    const ctx = await bootHost({ root: join(base, 'a'), indexFile: join(base, 'titles.json'), searchIndexFile: join(base, 'content.sqlite'), watchLogs: true });
    const resolver = ctx.get('sessionReferenceResolver');
    const catalog = ctx.get('sessionReferenceCatalog');
    const ask = async (step) => {
      const answers = { mode, step };
      for (const query of ['alphaword', 'charlword', 'charlplant']) {
        answers[query] = (await resolver.searchContent(undefined, query)).map((hit) => `${hit.sessionId} "${hit.label}" ${hit.role}: ${hit.snippet}`);
      }
      answers.title = (await catalog.readTitles([ID]))[0]?.title;
      console.log(JSON.stringify(answers));
    };
    await ask('learnt');
    const before = statSync(live);
    if (mode === 'rename') {
      copyFileSync(next, `${live}.new`);
      utimesSync(`${live}.new`, before.atime, before.mtime);
      renameSync(`${live}.new`, live);
    } else {
      writeFileSync(live, readFileSync(next));
      utimesSync(live, before.atime, before.mtime);
    }
    console.log(JSON.stringify({ mode, replaced: true, sizeBefore: before.size, sizeAfter: statSync(live).size, sameMtime: statSync(live).mtimeMs === before.mtimeMs }));
    await ask('after the replacement');
    await ask('asked again');
    await ctx.fiber.dispose();
  }
}

async function searchIndex() {
  const bin = join(process.cwd(), 'packages/cli/bundle/bin.js');
  const root = join(scratch, 'root');
  const cache = join(scratch, 'cache');
  mkdirSync(root);
  const env = { ...process.env, SESSREF_CACHE_DIR: cache, HOME: join(scratch, 'home'), NO_COLOR: '1' };
  const sessref = (label, args) => {
    const started = performance.now();
    const run = spawnSync(process.execPath, [bin, ...args], { env, encoding: 'utf8' });
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    console.log(`$ ${label}\nexit ${run.status} after ${seconds} s\n${(run.stdout + run.stderr).trim()}\n`);
  };
  spawnSync(process.execPath, [bin, 'seed', '--root', root], { env });
  sessref('sessref search deployed   # healthy', ['search', '--root', root, 'deployed']);
  const index = join(cache, readdirSync(cache).find((name) => name.endsWith('.sqlite')));
  writeFileSync(index, randomFillSync(Buffer.alloc(5000)));
  for (const time of ['', ' (again)']) sessref(`sessref search deployed   # the index file overwritten with random bytes${time}`, ['search', '--root', root, 'deployed']);
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${index}${suffix}`, { force: true });
  spawnSync(process.execPath, [bin, 'search', '--root', root, 'deployed'], { env });
  // Another process's exclusive lock: a child holds it until this one ends it.
  const holder = spawn(process.execPath, ['-e', HOLDER, index], { stdio: ['ignore', 'pipe', 'ignore'] });
  await new Promise((resolve) => holder.stdout.once('data', resolve));
  sessref('sessref search deployed   # while another process holds the index file locked', ['search', '--root', root, 'deployed']);
  holder.kill();
}

