/**
 * The agent table (#32 item 2): an agent is one folder and one row. Every
 * folder's row is in the table under the folder's name, each row's facts
 * are what its reader uses, the variables a row names do move its folder,
 * the table stays light (what help texts load reaches no reader), and every
 * list of the agents in the docs names each of them.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { AGENT_NAMES, AGENTS, isAgentName } from '../src/agents.js';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));
const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const environment = { home: '/nonexistent/home', env: {} };

/** The modules `file` loads when it is loaded: its static value imports (type imports and dynamic ones load nothing then). */
function staticImports(file: string): string[] {
  return [...readFileSync(file, 'utf8').matchAll(/^(?:import|export) (?!type )[^;]*?from '([^']+)';/gm)].map(([, specifier]) => (specifier!.startsWith('.') ? resolve(dirname(file), specifier!).replace(/\.js$/, '.ts') : specifier!));
}

/** Every module loaded with `entry`, itself included. */
function loadedWith(entry: string): Set<string> {
  const loaded = new Set<string>();
  const visit = (module: string): void => {
    if (loaded.has(module)) return;
    loaded.add(module);
    if (module.endsWith('.ts')) for (const imported of staticImports(module)) visit(imported);
  };
  visit(entry);
  return loaded;
}

/** What a user reads, each as one line: the READMEs, docs/*.md and the packages' descriptions. */
function pages(): [string, string][] {
  const packages = readdirSync(join(REPO, 'packages'));
  const readmes = ['README.md', 'bench/README.md', ...packages.map((name) => `packages/${name}/README.md`), ...readdirSync(join(REPO, 'docs')).map((name) => `docs/${name}`)];
  const found = readmes.filter((path) => path.endsWith('.md') && existsSync(join(REPO, path))).map((path): [string, string] => [path, readFileSync(join(REPO, path), 'utf8')]);
  const descriptions = packages.map((name): [string, string] => [`packages/${name}/package.json`, String((JSON.parse(readFileSync(join(REPO, 'packages', name, 'package.json'), 'utf8')) as { description?: string }).description)]);
  return [...found, ...descriptions].map(([path, text]) => [path, text.replace(/\s+/g, ' ')]);
}

describe('the agent table', () => {
  it("lists every agent folder's row, under the folder's name", () => {
    const folders = readdirSync(SRC).filter((name) => existsSync(join(SRC, name, 'agent.ts')));
    expect([...AGENT_NAMES].sort()).toEqual(folders.sort());
    for (const name of AGENT_NAMES) expect(AGENTS[name].name).toBe(name);
    expect(new Set(AGENT_NAMES.map((name) => AGENTS[name].displayName)).size).toBe(AGENT_NAMES.length);
    expect(isAgentName('codex')).toBe(true);
    expect(isAgentName('toString')).toBe(false);
  });

  it.each(AGENT_NAMES)("%s: each variable its row names moves its folder away from the default", (name) => {
    const agent = AGENTS[name];
    expect(agent.movedBy.length).toBeGreaterThan(0);
    for (const variable of agent.movedBy) {
      const moved = agent.home({ ...environment, env: { [variable]: '/elsewhere' } });
      expect(moved, variable).not.toBe(agent.home(environment));
      expect(moved.startsWith('/elsewhere'), variable).toBe(true);
    }
  });

  it.each(AGENT_NAMES)("%s: its reader, once loaded, names the agent as its row does and reads the row's home", async (name) => {
    const { reader, displayName, home } = AGENTS[name];
    if ('transcripts' in reader) {
      const format = await reader.transcripts();
      expect({ name: format.name, displayName: format.displayName, home: format.home(environment) }).toEqual({ name, displayName, home: home(environment) });
    } else {
      const source = await reader.store(environment, { listingCacheFile: '/nonexistent/cache/listing.json' });
      expect(source.name).toBe(name);
      source.close();
    }
  });

  it('is light: what help texts load (`@sessref/sources/agents`) reaches path helpers only, no reader', () => {
    const loaded = [...loadedWith(join(SRC, 'agents.ts'))].map((module) => (module.startsWith(SRC) ? module.slice(SRC.length) : module));
    const rows = AGENT_NAMES.map((name) => `${name}/agent.ts`);
    const helpers = ['agents.ts', 'agent-row.ts', 'configured-folder.ts', 'opencode/locate.ts', 'node:path'];
    expect(loaded.filter((module) => !rows.includes(module) && !helpers.includes(module))).toEqual([]);
  });

  it('is what every list of the agents in the docs names, each of them', () => {
    const names = AGENT_NAMES.map((name) => AGENTS[name].displayName);
    // A list of the agents starts as the table does; it ends at the sentence's or the parenthesis's end.
    const opening = names.slice(0, 3).join(', ');
    const lists = pages().flatMap(([path, text]) => text.split(opening).slice(1).map((rest) => [path, `${opening}${rest.split(/[.;)]/)[0]}`] as const));
    expect(lists.length).toBeGreaterThan(0);
    const missing = lists.flatMap(([path, list]) => {
      const items = new Set(list.split(/,\s*|\s+(?:and|or)\s+/).map((item) => item.trim()));
      return names.filter((name) => !items.has(name)).map((name) => `${path}: ${name}`);
    });
    expect(missing).toEqual([]);
  });
});
