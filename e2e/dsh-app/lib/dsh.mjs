/**
 * Driving the installed `dsh` binary: `dsh web` as a server, its config dump,
 * `dsh plugin add`, and calls to its HTTP API gateway.
 *
 * The gateway is what the Web UI's connection plugin talks to: every API
 * method, plain (`session.list`) or a Remote face (`<service>/<method>`), is
 * `POST /api/<method>` with the JSON envelope
 * `{ type: 'client-request', rpcId, method, payload }`; a Remote's arguments
 * go in `payload.args` by their wire names. The answer is
 * `{ type: 'server-response', rpcId, result: { ok: true, value } }` or
 * `{ …, result: { ok: false, error: { code, message, details } } }`. The
 * browser-trust fence accepts a loopback Host header without an Origin.
 */
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { binDir, CACHE_DIR, childEnv } from './install.mjs';
import { lastLines, run, spawnTracked } from './proc.mjs';

/**
 * Every other agent's home override (see `@sessref/sources`) pointing into
 * `dir`, at folders that do not exist, except Claude Code's when `claude`
 * names its config folder: sessref's bundle offers every agent home it finds
 * at start, and the machine's own `~/.claude` and the like must not leak in.
 * `HOME` itself stays (dsh, pnpm and sessref's cache directory use it).
 */
export function agentHomesEnv(dir, { claude } = {}) {
  return {
    CLAUDE_CONFIG_DIR: claude ?? join(dir, 'claude'),
    CODEX_HOME: join(dir, 'codex'),
    GEMINI_CLI_HOME: join(dir, 'gemini'),
    XDG_DATA_HOME: join(dir, 'data'),
  };
}

/**
 * The environment every dsh child gets: the cache's .bin first (node 22,
 * pnpm, dsh), and `agentHomes` (see {@link agentHomesEnv}) when given.
 */
export function dshEnv({ home, modelUrl, agentsHome, agentHomes }) {
  const env = childEnv({
    ...agentHomes,
    PATH: `${binDir()}:${process.env.PATH ?? ''}`,
    DSH_HOME: home,
    DSH_AGENTS_HOME: agentsHome,
    DSH_TELEMETRY_DISABLED: '1',
    DEEPSEEK_API_KEY: 'sk-dsh-app-test-not-a-real-key',
    DEEPSEEK_BASE_URL: modelUrl,
    NO_COLOR: '1',
  });
  // Relative to XDG_DATA_HOME's opencode folder, so it would name a database outside it.
  if (agentHomes !== undefined) delete env.OPENCODE_DB;
  return env;
}

const dshBin = () => join(binDir(), 'dsh');

/**
 * Boot `dsh web` on an OS-chosen loopback port and wait until it serves.
 * @returns {Promise<{ url: string, handle: ReturnType<typeof spawnTracked>, ms: number }>}
 */
export async function bootDshWeb({ env, cwd, label, timeoutMs = 90_000 }) {
  const started = Date.now();
  const handle = spawnTracked(dshBin(), ['web', '--host', '127.0.0.1', '--port', '0', '--no-open'], { cwd, env, label });
  let exit;
  handle.exited.then((value) => { exit = value; });
  let url;
  while (url === undefined) {
    if (exit !== undefined) {
      throw new Error(`${label}: dsh web exited (code ${exit.code}, signal ${exit.signal}) before serving: ${lastLines(handle.stderr || handle.stdout)}`);
    }
    if (Date.now() - started > timeoutMs) throw new Error(`${label}: dsh web printed no URL within ${timeoutMs / 1000} s: ${lastLines(handle.stderr || handle.stdout)}`);
    const match = /dsh web: (http:\/\/127\.0\.0\.1:\d+)/.exec(handle.stdout);
    if (match) url = match[1];
    else await sleep(200);
  }
  // Bounded poll: the page and the API both answer.
  for (let attempt = 0; ; attempt += 1) {
    try {
      const page = await globalThis.fetch(`${url}/`, { signal: globalThis.AbortSignal.timeout(5000) });
      const api = await callApi(url, 'host.describe', {});
      if (page.ok && api.ok) break;
    } catch { /* not yet */ }
    if (Date.now() - started > timeoutMs || attempt > 300) throw new Error(`${label}: dsh web at ${url} did not start serving within ${timeoutMs / 1000} s`);
    await sleep(250);
  }
  return { url, handle, ms: Date.now() - started };
}

/**
 * `dsh web --dump-config`: the composed profile tree, parsed, with the
 * provenance comment line (`# == <bundle>[, patched by <bundle>…]`) of each row.
 */
export async function dumpConfig({ env, cwd }) {
  const result = await run(dshBin(), ['web', '--dump-config'], { cwd, env, timeoutMs: 60_000, label: 'dsh web --dump-config' });
  if (result.code !== 0) throw new Error(`dsh web --dump-config failed (exit ${result.code}): ${lastLines(result.stderr || result.stdout)}`);
  const yaml = createRequire(join(CACHE_DIR, 'package.json'))('js-yaml');
  // `!!js <expression>` values stay unevaluated: { $js: '<expression>' }.
  const jsTags = ['scalar', 'sequence', 'mapping'].map((kind) => new yaml.Type('tag:yaml.org,2002:js', { kind, construct: ($js) => ({ $js }) }));
  const rows = yaml.load(result.stdout, { schema: yaml.DEFAULT_SCHEMA.extend(jsTags) });
  if (!Array.isArray(rows)) throw new Error('dsh web --dump-config did not print a YAML list');
  const origins = [];
  let origin = '';
  for (const line of result.stdout.split('\n')) {
    if (line.startsWith('# == ')) origin = line.slice(5);
    else if (line.startsWith('- ')) origins.push(origin);
  }
  return { rows: rows.map((row, index) => ({ ...row, origin: origins[index] ?? '' })), text: result.stdout };
}

/** `dsh plugin --profile web add <spec>`, with pnpm's store kept inside the cache folder. */
export async function pluginAdd({ env, cwd, spec }) {
  const result = await run(dshBin(), ['plugin', '--profile', 'web', 'add', spec, '--store-dir', join(CACHE_DIR, 'pnpm-store')], {
    cwd, env, timeoutMs: 5 * 60_000, label: 'dsh plugin add',
  });
  if (result.timedOut) throw new Error('dsh plugin --profile web add timed out after 300 s');
  if (result.code !== 0) throw new Error(`dsh plugin --profile web add failed (exit ${result.code}): ${lastLines(`${result.stdout}\n${result.stderr}`)}`);
  return result;
}

/** One gateway call: `POST /api/<method>`; resolves to the envelope's `result`. */
async function callApi(baseUrl, method, payload) {
  const response = await globalThis.fetch(`${baseUrl}/api/${method}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ type: 'client-request', rpcId: randomUUID(), method, payload }),
    signal: globalThis.AbortSignal.timeout(15_000),
  });
  const text = await response.text();
  let body;
  try { body = JSON.parse(text); } catch {
    throw new Error(`gateway ${method}: HTTP ${response.status} with a non-JSON body: ${text.slice(0, 120)}`);
  }
  if (body?.type !== 'server-response' || typeof body.result !== 'object' || body.result === null) {
    throw new Error(`gateway ${method}: HTTP ${response.status}, not a server-response envelope: ${text.slice(0, 160)}`);
  }
  return body.result;
}

/** A Remote face call: `<service>/<method>` with its arguments under `payload.args`. */
export const callRemote = (baseUrl, method, args) => callApi(baseUrl, method, { args });
