/**
 * Finding the agents' homes (#37 item 1): a home that cannot even be checked
 * (a symbolic-link loop in its place, a parent closed to this user) skips
 * that agent with a coded reason naming its folder; the other agents' homes
 * are found and listed as before.
 */
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { AGENT_NAMES, agentFolders, localSources, unreadableHomes, type AgentName } from '@sessref/sources';
import { AGENTS } from '../src/agents.js';

const SAMPLES = fileURLToPath(new URL('../../../../shared/cross-harness-samples/', import.meta.url));
const CODEX_ID = '019b2ea4-aaaa-bbbb-cccc-58208e1f0000';
const isRoot = process.getuid?.() === 0;

const scratch = mkdtempSync(join(tmpdir(), 'sessref-homes-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A link to itself at `path` (`ln -s loop loop`): any path through it fails with ELOOP. */
function loopAt(path: string): void {
  mkdirSync(join(path, '..'), { recursive: true });
  symlinkSync(path, path);
}

/**
 * A home with every agent's folder at the place the environment gives (each
 * variable that moves an agent names a folder of its own, so each agent's
 * folder can be replaced alone), every home in it made, and one Codex
 * session so a listing has something to find.
 */
function everyHome(name: string): { home: string; env: Record<string, string>; folders: Record<AgentName, string> } {
  const home = join(scratch, name);
  const moved = join(home, 'moved');
  const variables = AGENT_NAMES.flatMap((agent) => AGENTS[agent].movedBy);
  const env = { ...Object.fromEntries(variables.map((variable) => [variable, join(moved, variable)])), SESSREF_CACHE_DIR: join(home, 'cache') };
  for (const agent of AGENT_NAMES) mkdirSync(AGENTS[agent].home({ home, env }), { recursive: true });
  // Each agent's own folder where the environment moved it (its default, under the home, is not there).
  const folders = Object.fromEntries(agentFolders({ home, env }).flatMap(({ name: agent, folder }) => (folder.startsWith(moved) ? [[agent, folder]] : []))) as Record<AgentName, string>;
  const day = join(AGENTS.codex.home({ home, env }), 'sessions', '2025', '12', '18');
  mkdirSync(day, { recursive: true });
  copyFileSync(join(SAMPLES, 'codex/agent-sessions/large.jsonl'), join(day, `rollout-2025-12-18T10-00-00-${CODEX_ID}.jsonl`));
  return { home, env, folders };
}

describe("agents' homes that cannot be checked", () => {
  it('every home present: every agent found, none unreadable', () => {
    const { home, env, folders } = everyHome('all');
    // Every agent's folder moved by the variables its row names.
    expect(Object.keys(folders).sort()).toEqual([...AGENT_NAMES].sort());
    expect(localSources({ home, env }).map((local) => local.name)).toEqual(AGENT_NAMES);
    expect(unreadableHomes({ home, env })).toEqual([]);
  });

  it.each(AGENT_NAMES)('a symbolic-link loop in place of the %s folder skips that agent alone, naming its folder', async (agent) => {
    const { home, env, folders } = everyHome(`loop-${agent}`);
    rmSync(folders[agent], { recursive: true });
    loopAt(folders[agent]);
    const found = localSources({ home, env });
    expect(found.map((local) => local.name)).toEqual(AGENT_NAMES.filter((name) => name !== agent));
    const [skipped, ...more] = unreadableHomes({ home, env });
    expect(more).toEqual([]);
    expect(skipped).toMatchObject({ name: agent, error: { code: 'SOURCE_SESSION_UNREADABLE' } });
    expect(skipped!.home.startsWith(folders[agent])).toBe(true);
    expect(skipped!.error.message).toContain(skipped!.home);
    expect(skipped!.error.message).toContain('ELOOP');
    // The others answer as before.
    const codex = found.find((local) => local.name === 'codex');
    if (codex !== undefined) expect((await codex.source.listSessions()).map((header) => header.id)).toEqual([`codex:${CODEX_ID}`]);
    for (const local of found) local.source.close();
  });

  it('an agent not asked for is neither found nor reported', () => {
    const { home, env, folders } = everyHome('not-asked');
    rmSync(folders['claude-code'], { recursive: true });
    loopAt(folders['claude-code']);
    expect(localSources({ home, env }, ['codex']).map((local) => local.name)).toEqual(['codex']);
    expect(unreadableHomes({ home, env }, ['codex'])).toEqual([]);
  });

  it.skipIf(isRoot)('a home folder this user cannot enter skips every agent under it with EACCES, the moved ones still found', () => {
    const { home, env } = everyHome('closed');
    chmodSync(home, 0o600);
    try {
      // Every folder here is under the closed home; only a folder elsewhere stays readable.
      const elsewhere = join(scratch, 'elsewhere-codex');
      mkdirSync(elsewhere, { recursive: true });
      const moved = { ...env, CODEX_HOME: elsewhere };
      expect(localSources({ home, env: moved }).map((local) => local.name)).toEqual(['codex']);
      const skipped = unreadableHomes({ home, env: moved });
      expect(skipped.map((entry) => entry.name)).toEqual(AGENT_NAMES.filter((name) => name !== 'codex'));
      for (const entry of skipped) expect(entry.error.message).toContain('EACCES');
    } finally {
      chmodSync(home, 0o700);
    }
  });
});
