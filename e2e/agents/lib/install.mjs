/**
 * The cached install of the real agent CLIs under `.cache/agents/`,
 * pinned to the versions `../shared/formats/real-agents-offline.md` verified,
 * made once with `npm install --prefix` and reused while every package is at
 * its pinned version and its binary is in place.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { childEnv, REPO_ROOT } from '../../dsh-app/lib/install.mjs';
import { lastLines, run } from '../../dsh-app/lib/proc.mjs';

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
};

export const binPath = (name) => join(CACHE_DIR, 'node_modules', AGENTS[name].pkg, AGENTS[name].bin);

function installedVersion(name) {
  const path = join(CACHE_DIR, 'node_modules', AGENTS[name].pkg, 'package.json');
  if (!existsSync(path)) return 'absent';
  try { return JSON.parse(readFileSync(path, 'utf8')).version; } catch { return 'unreadable'; }
}

/** What is wrong with the cached install, per agent (empty when it is usable). */
function installProblems() {
  const problems = {};
  for (const name of Object.keys(AGENTS)) {
    const version = installedVersion(name);
    if (version !== AGENTS[name].version) problems[name] = `${AGENTS[name].pkg} is ${version}, expected ${AGENTS[name].version}`;
    else if (!existsSync(binPath(name))) problems[name] = `${binPath(name)} is missing`;
  }
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
  if (Object.keys(installProblems()).length === 0) return { installed: false, ms: 0, problems: {} };
  mkdirSync(CACHE_DIR, { recursive: true });
  const specs = Object.values(AGENTS).map(({ pkg, version }) => `${pkg}@${version}`);
  log(`install: npm install --prefix ${CACHE_DIR} ${specs.join(' ')} (about 1 GB, the first time only)`);
  const result = await run('npm', ['install', '--prefix', CACHE_DIR, '--no-audit', '--no-fund', '--save-exact', '--loglevel=error', ...specs], {
    cwd: CACHE_DIR, env: childEnv(), timeoutMs, label: 'npm install (agents cache)',
  });
  const output = `${result.stdout}\n${result.stderr}`;
  if (result.timedOut) return { installed: true, ms: Date.now() - started, problems: installProblems(), networkFailure: `npm install timed out after ${Math.round(timeoutMs / 1000)} s` };
  if (result.code !== 0) {
    const why = `npm install failed (exit ${result.code}): ${lastLines(output)}`;
    return { installed: true, ms: Date.now() - started, problems: installProblems(), ...(isNetworkFailure(output) ? { networkFailure: why } : { error: why }) };
  }
  return { installed: true, ms: Date.now() - started, problems: installProblems() };
}
