/**
 * The cached install of the real published DeepSeek Harness (`dsh`
 * 0.1.0-rc.8) under `.cache/dsh-app/`, made once and reused.
 *
 * What the install needs, found by hand on this project's machine:
 * - `npm install --legacy-peer-deps` (the dsh packages carry peer ranges that
 *   npm's strict resolver would refuse);
 * - the Cordis framework set rc.8 was released with, pinned exactly as direct
 *   dependencies: newer ones break its patch watcher;
 * - every non-optional `@deepseek-ai/dsh-*` peer (and react/react-dom 18)
 *   listed directly, since `--legacy-peer-deps` installs no peers;
 * - `node@22` (dsh's persistence needs Node 22) and `pnpm` (what
 *   `dsh plugin` runs) in the same `node_modules/.bin`.
 *
 * The install is skipped when the marker file records the same dependency
 * set and the same package-lock.json.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { lastLines, npmWithRetries } from './proc.mjs';

export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const CACHE_DIR = join(REPO_ROOT, '.cache', 'dsh-app');
const MARKER = join(CACHE_DIR, '.sessref-dsh-app.json');
const DSH_VERSION = '0.1.0-rc.8';

/** Exact versions the install must end up with (checked after every install). */
const PINNED = {
  '@deepseek-ai/dsh': DSH_VERSION,
  '@deepseek-ai/cordis': '4.0.1',
  '@deepseek-ai/cordis-plugin-hmr': '1.0.16',
  '@deepseek-ai/cordis-plugin-loader': '1.0.2',
  '@deepseek-ai/cordis-plugin-include': '1.0.6',
  '@deepseek-ai/cordis-plugin-timer': '1.1.3',
  '@deepseek-ai/cordis-plugin-group': '1.0.1',
  '@deepseek-ai/cosmokit': '1.8.2',
  '@deepseek-ai/schemastery': '3.18.1',
};

/** Non-optional peers of the rc.8 closure that nothing installs (found by scanning it). */
const PEERS = [
  'anonymous-user-id', 'atomic-write', 'bash-local', 'code-runtime', 'compaction', 'fs', 'invariants',
  'output-retention', 'sandbox', 'scope', 'session-telemetry', 'session-title-llm', 'shell', 'spill',
  'subagent-in-process-driver', 'timeout', 'workflow',
].map((name) => `@deepseek-ai/dsh-${name}`);

function baseManifest(extraPeers = []) {
  const dependencies = { ...PINNED };
  for (const name of [...PEERS, ...extraPeers]) dependencies[name] = DSH_VERSION;
  dependencies.react = '18.3.1';
  dependencies['react-dom'] = '18.3.1';
  dependencies.node = '22.23.3';
  dependencies.pnpm = '12.23.0';
  const sorted = Object.fromEntries(Object.entries(dependencies).sort(([a], [b]) => a.localeCompare(b)));
  return {
    name: 'sessref-dsh-app-cache',
    private: true,
    description: 'Cached install of the published dsh web app for `npm run test:dsh-app` (generated; safe to delete).',
    dependencies: sorted,
  };
}

const sha256 = (text) => createHash('sha256').update(text).digest('hex');

/** The environment for npm/pnpm children: no npm_* variables of the outer `npm run`. */
export function childEnv(extra = {}) {
  const env = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^npm_/i.test(key) && value !== undefined) env[key] = value;
  }
  return { ...env, ...extra };
}

export const binDir = () => join(CACHE_DIR, 'node_modules', '.bin');

function readJson(path) {
  return JSON.parse(readFileSync(path, 'utf8'));
}

/** Non-optional `@deepseek-ai/dsh-*` / react peers no package in the install satisfies. */
function missingPeers(dir = CACHE_DIR) {
  const modules = join(dir, 'node_modules');
  const missing = new Map();
  const visit = (folder) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      if (entry.name.startsWith('.') || !(entry.isDirectory() || entry.isSymbolicLink())) continue;
      const path = join(folder, entry.name);
      if (entry.name.startsWith('@')) { visit(path); continue; }
      const manifestPath = join(path, 'package.json');
      if (!existsSync(manifestPath)) continue;
      const manifest = readJson(manifestPath);
      for (const peer of Object.keys(manifest.peerDependencies ?? {})) {
        if (manifest.peerDependenciesMeta?.[peer]?.optional === true) continue;
        if (!(peer.startsWith('@deepseek-ai/dsh-') || peer === 'react' || peer === 'react-dom')) continue;
        if (!existsSync(join(modules, peer, 'package.json'))) missing.set(peer, manifest.name);
      }
      if (existsSync(join(path, 'node_modules'))) visit(join(path, 'node_modules'));
    }
  };
  visit(modules);
  return missing;
}

/** Problems with the installed tree, empty when it is what the test needs. */
function verifyInstall() {
  const problems = [];
  for (const [name, version] of Object.entries(PINNED)) {
    const path = join(CACHE_DIR, 'node_modules', name, 'package.json');
    const installed = existsSync(path) ? readJson(path).version : 'absent';
    if (installed !== version) problems.push(`${name} is ${installed}, expected ${version}`);
  }
  for (const bin of ['dsh', 'node', 'pnpm']) {
    if (!existsSync(join(binDir(), bin))) problems.push(`node_modules/.bin/${bin} is missing`);
  }
  const missing = missingPeers();
  if (missing.size > 0) problems.push(`missing peers: ${[...missing.keys()].join(', ')}`);
  return problems;
}

function markerValue() {
  const lockPath = join(CACHE_DIR, 'package-lock.json');
  return {
    manifest: sha256(JSON.stringify(baseManifest())),
    lock: existsSync(lockPath) ? sha256(readFileSync(lockPath, 'utf8')) : null,
  };
}

/** Whether the cache already holds the install this code asks for. */
function installIsCurrent() {
  if (!existsSync(MARKER)) return false;
  let recorded;
  try { recorded = readJson(MARKER); } catch { return false; }
  const now = markerValue();
  return recorded.manifest === now.manifest && recorded.lock === now.lock
    && existsSync(join(binDir(), 'dsh')) && existsSync(join(binDir(), 'node')) && existsSync(join(binDir(), 'pnpm'));
}

/**
 * Make sure `.cache/dsh-app/` holds the install; idempotent.
 * @param {{ log: (line: string) => void, timeoutMs?: number }} options
 * @returns {Promise<{ installed: boolean, ms: number, addedPeers: string[] }>}
 */
export async function ensureInstall({ log, timeoutMs = 20 * 60_000 }) {
  const started = Date.now();
  if (installIsCurrent()) return { installed: false, ms: Date.now() - started, addedPeers: [] };
  mkdirSync(CACHE_DIR, { recursive: true });
  const extra = [];
  for (let round = 1; round <= 3; round += 1) {
    writeFileSync(join(CACHE_DIR, 'package.json'), `${JSON.stringify(baseManifest(extra), null, 2)}\n`);
    log(`install: npm install in ${CACHE_DIR} (round ${round}; the first one takes a few minutes)`);
    const result = await npmWithRetries(['install', '--legacy-peer-deps', '--no-audit', '--no-fund', '--loglevel=error'], {
      cwd: CACHE_DIR,
      env: childEnv(),
      timeoutMs: timeoutMs - (Date.now() - started),
      label: 'npm install (dsh-app cache)',
      log,
    });
    if (result.timedOut) throw new Error(`install: npm install timed out after ${Math.round((Date.now() - started) / 1000)} s`);
    if (result.code !== 0) throw new Error(`install: npm install failed (exit ${result.code}, ${result.tries} tries): ${lastLines(result.stderr || result.stdout)}`);
    const missing = [...missingPeers().keys()].filter((name) => name.startsWith('@deepseek-ai/dsh-'));
    if (missing.length === 0) break;
    log(`install: adding peers no package installs: ${missing.join(', ')}`);
    extra.push(...missing);
  }
  const problems = verifyInstall();
  if (problems.length > 0) throw new Error(`install: the cached dsh install is not usable: ${problems.join('; ')}`);
  writeFileSync(MARKER, `${JSON.stringify({ ...markerValue(), extraPeers: extra, at: new Date().toISOString() }, null, 2)}\n`);
  return { installed: true, ms: Date.now() - started, addedPeers: extra };
}
