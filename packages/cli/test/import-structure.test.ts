/**
 * The packages' import structure, read from their sources: no module
 * imports itself back through others (type imports included: a cycle of
 * types is a cycle of knowledge), and a package's public address is its own
 * (the Node platform is imported from `@sessref/platform`, never through a
 * package that used to re-export it, and no package re-exports another's).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const PACKAGES = fileURLToPath(new URL('../../', import.meta.url));

/** Every non-test TypeScript source under `packages/<name>/src`. */
function sources(): string[] {
  const found: string[] = [];
  const walk = (folder: string): void => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (path.endsWith('.ts') && !path.endsWith('.test.ts') && !path.endsWith('.d.ts')) found.push(path);
    }
  };
  for (const name of readdirSync(PACKAGES)) if (existsSync(join(PACKAGES, name, 'src'))) walk(join(PACKAGES, name, 'src'));
  return found;
}

/** Each workspace package's exports, as the source file each one is built from. */
function exportedSources(): Map<string, string> {
  const exported = new Map<string, string>();
  for (const name of readdirSync(PACKAGES)) {
    const manifestPath = join(PACKAGES, name, 'package.json');
    if (!existsSync(manifestPath)) continue;
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { name: string; exports?: Record<string, string | { default?: string }> };
    for (const [subpath, target] of Object.entries(manifest.exports ?? {})) {
      const built = typeof target === 'string' ? target : target.default;
      if (built?.startsWith('./dist/') !== true) continue;
      exported.set(join(manifest.name, subpath), join(PACKAGES, name, built.replace('./dist/', 'src/').replace(/\.js$/, '.ts')));
    }
  }
  return exported;
}

/** Module → the workspace modules it imports (values and types alike). */
function importGraph(): Map<string, string[]> {
  const exported = exportedSources();
  const graph = new Map<string, string[]>();
  for (const file of sources()) {
    const imported = [...readFileSync(file, 'utf8').matchAll(/(?:import|export)[^'";]*?from\s+'([^']+)'/g)].flatMap(([, specifier]) => {
      const target = specifier!.startsWith('.') ? resolve(dirname(file), specifier!).replace(/\.js$/, '.ts') : exported.get(specifier!);
      return target !== undefined && existsSync(target) ? [target] : [];
    });
    graph.set(file, imported);
  }
  return graph;
}

/** The strongly connected groups of more than one module (Tarjan's algorithm). */
function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (module: string): void => {
    index.set(module, next);
    low.set(module, next++);
    stack.push(module);
    for (const target of graph.get(module) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(module, Math.min(low.get(module)!, low.get(target)!));
      } else if (stack.includes(target)) low.set(module, Math.min(low.get(module)!, index.get(target)!));
    }
    if (low.get(module) !== index.get(module)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      group.push(relative(PACKAGES, member));
    } while (member !== module);
    if (group.length > 1) found.push(group.sort());
  };
  for (const module of graph.keys()) if (!index.has(module)) visit(module);
  return found;
}

describe('the import structure', () => {
  it('has no cycle, counting type imports', () => {
    const graph = importGraph();
    expect(graph.size).toBeGreaterThan(100);
    expect(cycles(graph)).toEqual([]);
  });

  it('imports the Node platform, the readers and the search index from their own packages, never through a re-export', () => {
    // (The dsh plugin re-exports the core's contract types on purpose: its public surface is the official plugin's.)
    const reexporting = sources().filter((file) => /^export\s[^;]*?\sfrom\s+'@sessref\/(?:platform|sources|search-index)/m.test(readFileSync(file, 'utf8')));
    expect(reexporting.map((file) => relative(PACKAGES, file))).toEqual([]);
    const toolkitFromElsewhere = sources().filter((file) => /import\s[^;]*?\b(?:readRegularFile|replaceFileAtomically|sameRevision|scanFrame|loadNodeSqlite|PROCESS_LISTINGS)\b[^;]*?from\s+'@sessref\/(?!platform')/m.test(readFileSync(file, 'utf8')));
    expect(toolkitFromElsewhere.map((file) => relative(PACKAGES, file))).toEqual([]);
  });
});
