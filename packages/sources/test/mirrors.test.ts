/**
 * Mirrors of other machines (`sessref remote`): two mirrors holding the same
 * Claude Code session list it twice, each id, source and label naming its
 * host, and each read goes back to its own mirror; a remotes folder others
 * may write into, or a folder that names no remote, is not read.
 */
import { appendFileSync, chmodSync, copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AGENT_NAMES, mirroredSources } from '@sessref/sources';
import { AGENTS, mirroredPaths } from '../src/agents.js';
import { samplesOf, scratchFolder } from './support';

const CLAUDE_ID = 'ae4a77f8-aedd-4bc1-888f-c94edc91af04';
const MARKER = 'a turn only the laptop mirror holds';

/** A cache folder with a mirror per host, each holding the one Claude Code sample at its default place. */
function cacheWithMirrors(hosts: readonly string[]): string {
  const cache = scratchFolder('sessref-mirrors-');
  for (const host of hosts) {
    const projects = join(cache, 'remotes', host, 'home', '.claude', 'projects', '-work-app');
    mkdirSync(projects, { recursive: true });
    copyFileSync(join(samplesOf('claude-code'), 'spotter', `${CLAUDE_ID}.jsonl`), join(projects, `${CLAUDE_ID}.jsonl`));
    chmodSync(join(projects, `${CLAUDE_ID}.jsonl`), 0o600);
  }
  chmodSync(join(cache, 'remotes'), 0o700);
  return cache;
}

const environment = (cache: string) => ({ home: join(cache, 'no-home'), env: { SESSREF_CACHE_DIR: cache } });

describe('mirroredSources', () => {
  it('keeps two machines apart: ids, sources and labels name the host, and each read goes to its own mirror', async () => {
    const cache = cacheWithMirrors(['devbox', 'laptop']);
    const turn = { parentUuid: '5cafd95d-28af-456d-b379-beea59afc6c2', isSidechain: false, type: 'user', message: { role: 'user', content: MARKER }, uuid: '7d1c2b3a-0000-4000-8000-000000000002', timestamp: '2026-02-12T15:10:00.000Z' };
    appendFileSync(join(cache, 'remotes', 'laptop', 'home', '.claude', 'projects', '-work-app', `${CLAUDE_ID}.jsonl`), `${JSON.stringify(turn)}\n`);
    const sources = mirroredSources(environment(cache), ['claude-code', 'codex']);
    expect(sources.map(({ name, agent, host, displayName }) => ({ name, agent, host, displayName }))).toEqual([
      { name: 'devbox/claude-code', agent: 'claude-code', host: 'devbox', displayName: 'devbox · Claude Code' },
      { name: 'laptop/claude-code', agent: 'claude-code', host: 'laptop', displayName: 'laptop · Claude Code' },
    ]);
    const [devbox, laptop] = sources.map((mirrored) => mirrored.source);
    const devboxId = `devbox/claude-code:${CLAUDE_ID}`;
    const laptopId = `laptop/claude-code:${CLAUDE_ID}`;
    expect((await devbox!.listSessions()).map((header) => header.id)).toEqual([devboxId]);
    expect((await laptop!.listSessions()).map((header) => header.id)).toEqual([laptopId]);
    expect([devbox!.owns(devboxId), devbox!.owns(laptopId), devbox!.owns(`claude-code:${CLAUDE_ID}`)]).toEqual([true, false, false]);
    const [title] = await devbox!.readTitles([devboxId]);
    expect(title).toMatchObject({ sessionId: devboxId, status: 'fulfilled', title: expect.stringMatching(/^devbox · Claude Code · ./) });
    const laptopSurface = await laptop!.readSurface(laptopId);
    expect(laptopSurface.session.id).toBe(laptopId);
    expect(laptopSurface.messages.at(-1)).toMatchObject({ role: 'user' });
    expect(JSON.stringify(laptopSurface.messages.at(-1))).toContain(MARKER);
    expect(JSON.stringify((await devbox!.readSurface(devboxId)).messages)).not.toContain(MARKER);
    expect([...(await laptop!.changeStamps()).keys()]).toEqual([laptopId]);
    for (const mirrored of sources) mirrored.source.close();
  });

  it('reads no mirror in a remotes folder others may write into, and no folder that names no remote', () => {
    const cache = cacheWithMirrors(['devbox', 'Not_A_Remote']);
    expect(mirroredSources(environment(cache), ['claude-code']).map((mirrored) => mirrored.host)).toEqual(['devbox']);
    chmodSync(join(cache, 'remotes'), 0o777);
    expect(mirroredSources(environment(cache), ['claude-code'])).toEqual([]);
  });
});

describe("each agent's mirrored paths", () => {
  it.each(AGENT_NAMES)('%s: every one lies in the folder the agent owns at its default place, where its reader reads; none, with the reason, where a credential would go along', (name) => {
    const row = AGENTS[name];
    const defaults = { home: '/home/dev', env: {} };
    const owned = row.owns === 'parent' ? dirname(row.home(defaults)) : row.home(defaults);
    if ('withheld' in row.mirrored) {
      expect(row.mirrored.withheld).toMatch(/credential/);
      return expect(mirroredPaths(row)).toEqual([]);
    }
    expect(row.mirrored.length).toBeGreaterThan(0);
    for (const path of row.mirrored) expect(join(defaults.home, path).startsWith(owned + sep), path).toBe(true);
  });

  it("pulls nothing of OpenClaw: its sessions share their database with its auth profiles", () => {
    expect(mirroredPaths(AGENTS.openclaw)).toEqual([]);
  });
});
