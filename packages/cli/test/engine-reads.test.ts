/**
 * The engine reads a root with sessref's own reads (kept headers, the title
 * index, the content index), and a surface, a title or a step through dsh's
 * own session functions; it boots a dsh host only for a write, or a log only
 * dsh's read answers for. Two things are held here:
 *
 * - it answers exactly as an engine over a whole dsh host (title index and
 *   all, every read through `ctx.sessionQuery`) answers, over a root with
 *   healthy, titled, untitled, compacted and damaged sessions;
 * - a listing, the `@` menu's candidates and a warm search load none of
 *   dsh's runtime; a snapshot and a prepared step load dsh's session
 *   functions but boot no host; a write does (a child process records every
 *   module it resolves).
 */
import { execFileSync } from 'node:child_process';
import { mkdir, open, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { RootLogs } from '@sessref/dsh/reading';
import { Engine, type EngineOptions } from '../src/engine/engine.js';
import { logPath, ok, openEngineOnHost, removeTemps, tempDir } from './support.js';

let root: string;

beforeAll(async () => {
  root = join(await tempDir('sessref-engine-reads-'), 'sessions');
  // `seed` writes into an existing empty root only.
  await mkdir(root);
  await ok(['seed', '--root', root]);
  // A log whose body is damaged past its header: listed, its title unreadable.
  const damaged = await open(logPath(root, 'terraform-cleanup', '/home/dev/infra'), 'r+');
  try {
    const { size } = await damaged.stat();
    await damaged.write(Buffer.alloc(64, 0x7a), 0, 64, Math.floor(size / 2));
  } finally {
    await damaged.close();
  }
}, 120_000);

afterAll(removeTemps);

async function options(): Promise<EngineOptions> {
  const cache = await tempDir('sessref-engine-reads-cache-');
  return { root, indexFile: join(cache, 'titles.json'), searchIndexFile: join(cache, 'content.sqlite') };
}

/** What each face shows, as plain data: errors by their code. */
async function answers(engine: Engine) {
  const coded = (error: unknown) => (error as { code?: string }).code ?? String(error);
  const sessions = (await engine.sessions()).map(({ readError, ...session }) => ({ ...session, ...(readError === undefined ? {} : { readError: coded(readError) }) }));
  const readable = sessions.filter((session) => session.readError === undefined).map((session) => session.sessionId);
  const shows = await Promise.all(readable.map((id) => engine.show(id).then(({ header, title, items, reference }) => ({ header, title, items, reference }), coded)));
  return {
    sessions,
    candidates: await engine.candidates('scratchpad', ''),
    matching: await engine.candidates({ id: 'elsewhere', cwd: '/home/dev/infra' }, 'o', 3),
    search: await engine.search('the', { target: 'scratchpad' }),
    shows,
    cited: await engine.cite({ id: 'scratchpad', cwd: '/home/dev/webapp' }, ['flaky-ci', 'research-log']),
    titles: await Promise.all(readable.map((id) => engine.titleOf(id))),
  };
}

describe("the engine's own reads", () => {
  it('answer exactly as an engine over a whole dsh host', async () => {
    const own = await Engine.open(await options());
    const host = await openEngineOnHost(await options());
    try {
      const [mine, dsh] = [await answers(own), await answers(host)];
      expect(mine.sessions.some((session) => session.readError !== undefined)).toBe(true);
      expect(mine).toEqual(dsh);
    } finally {
      await own.close();
      await host.close();
    }
  }, 120_000);

  it('read each log whole once for a first search: the title index takes the titles the content index read with each surface', async () => {
    const loads = vi.spyOn(RootLogs.prototype, 'load');
    const engine = await Engine.open(await options());
    try {
      const hits = await engine.search('the', { target: 'scratchpad' });
      expect(hits.length).toBeGreaterThan(0);
      const perSession = new Map<string, number>();
      for (const [id] of loads.mock.calls) perSession.set(id, (perSession.get(id) ?? 0) + 1);
      // Every session but the damaged one, whose refusal is kept: its title read asks again and is refused without a read.
      expect([...perSession].filter(([id, count]) => count !== 1 && id !== 'terraform-cleanup')).toEqual([]);
      expect(perSession.size).toBe((await engine.sessions()).length);
    } finally {
      loads.mockRestore();
      await engine.close();
    }
  }, 120_000);

  it("list, the @ menu and a warm search load none of dsh's runtime; a snapshot and a step boot no host; a write does", async () => {
    const derived = await options();
    // A first engine fills the derived files, as a first command would (reading the logs through dsh, once).
    const first = await Engine.open(derived);
    await first.sessions();
    await first.search('the');
    await first.close();
    const probe = join(await tempDir('sessref-engine-reads-probe-'), 'probe.mjs');
    const engine = fileURLToPath(new URL('../dist/engine/engine.js', import.meta.url));
    await writeFile(
      probe,
      [
        "import { registerHooks } from 'node:module';",
        'const loaded = new Set();',
        "registerHooks({ resolve(specifier, context, next) { if (specifier.startsWith('@deepseek-ai/')) loaded.add(specifier); return next(specifier, context); } });",
        `const { Engine } = await import(${JSON.stringify(engine)});`,
        `const engine = await Engine.open(${JSON.stringify(derived)});`,
        "await engine.sessions(); await engine.candidates('scratchpad', 'fix'); await engine.search('the');",
        'const reads = [...loaded];',
        "await engine.show('flaky-ci'); await engine.preview('scratchpad', 'see @[CI](dsh-session:ImZsYWt5LWNpIg)');",
        'const snapshot = [...loaded];',
        "await engine.create({ title: 'a write boots the host' });",
        'console.log(JSON.stringify({ reads, snapshot, write: [...loaded] }));',
        'await engine.close();',
      ].join('\n'),
    );
    const seen = JSON.parse(execFileSync(process.execPath, [probe], { encoding: 'utf8', env: { ...process.env, HOME: await tempDir() } })) as { reads: string[]; snapshot: string[]; write: string[] };
    // The contract is read off dsh-session's manifest (see `@sessref/dsh`'s contract.ts): a JSON file, no module.
    expect(seen.reads.filter((specifier) => !specifier.endsWith('/package.json'))).toEqual([]);
    const host = ['@deepseek-ai/dsh-session-query', '@deepseek-ai/dsh-session-persistence-jsonl'];
    expect(seen.snapshot).toEqual(expect.arrayContaining(['@deepseek-ai/dsh-session']));
    expect(seen.snapshot).toEqual(expect.not.arrayContaining([expect.stringMatching(new RegExp(`^(${host.join('|')})$`))]));
    expect(seen.write).toEqual(expect.arrayContaining(host));
  }, 120_000);
});
