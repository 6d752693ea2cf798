/**
 * One driver per real CLI: the environment, files and flags that keep it on
 * the fake model and away from every outside service
 * (`../shared/formats/real-agents-offline.md`), and the steps that make it
 * write a multi-turn session with a compaction. Each driver returns the
 * native session id and the transcript file; the caller checks sessref.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { join } from 'node:path';
import process from 'node:process';
import { lastLines, run, spawnTracked } from '../../dsh-app/lib/proc.mjs';
import { userTurns } from './fake-model.mjs';
import { AGENTS, binPath, RUNTIMES } from './install.mjs';
import { hasTmux, poll, startTmux } from './tmux.mjs';

const STEP_TIMEOUT_MS = 90_000;

/** The prompts, replies and summary of one agent's script (every text names the agent, so no two agents match). */
export function script(name) {
  const turn = (word, n) => ({ prompt: `Turn ${n} for ${name}: remember the word ${word}.`, reply: `Fake ${name} reply ${n}: ${word} noted.` });
  const turns = [turn('ALPHA', 1), turn('BETA', 2), turn('GAMMA', 3)];
  if (name === 'gemini-cli') {
    // Gemini CLI keeps the newest 30% of the history (by characters) out of a compression; a long
    // second reply puts the whole history before the third turn into the summary.
    // No phrase repeats: Gemini CLI stops a reply that loops.
    turns[1].reply += ` Padding: ${Array.from({ length: 900 }, (_, i) => `item ${i + 1}`).join(', ')}.`;
  }
  return { turns, summary: `CHECKPOINT for ${name}: the user asked to remember ALPHA and BETA; both were noted.` };
}

const list = (dir) => (existsSync(dir) ? readdirSync(dir, { recursive: true }).map(String) : []);

/** The base environment of every agent child: a temp HOME and nothing of ours. */
function baseEnv(home) {
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, USER: 'sessref', TERM: 'xterm-256color', LANG: 'C.UTF-8', TMPDIR: join(home, 'tmp'), NO_COLOR: '1',
    // npx, which starts `sessref mcp` for the MCP clients as the README sets them up, would otherwise ask the registry for a newer npm.
    npm_config_update_notifier: 'false',
  };
  mkdirSync(env.TMPDIR, { recursive: true });
  return env;
}

export async function step(ctx, label, command, args, env) {
  ctx.log(`${ctx.name}: ${label}`);
  const started = Date.now();
  const result = await run(command, args, { cwd: ctx.work, env, timeoutMs: STEP_TIMEOUT_MS, label: `${ctx.name} ${label}` });
  ctx.steps.push({ label, ms: Date.now() - started, code: result.code });
  if (result.timedOut) throw new Error(`${label}: timed out after ${STEP_TIMEOUT_MS / 1000} s (stderr: ${lastLines(result.stderr)})`);
  if (result.code !== 0) throw new Error(`${label}: exit ${result.code}: ${lastLines(`${result.stdout}\n${result.stderr}`)}`);
  return result;
}

export function expectStdout(result, text, label) {
  if (!result.stdout.includes(text)) throw new Error(`${label}: the CLI printed ${JSON.stringify(lastLines(result.stdout, 2))}, not the fake's reply ${JSON.stringify(text.slice(0, 60))}`);
}

/**
 * One session of a terminal UI under a private tmux server, in the agent's
 * work folder, bounded by `timeout --foreground` (a TUI without it is stopped
 * by SIGTTIN): `drive(tui)` types and waits, and returns whether the TUI then
 * ended by itself. The step is recorded, the last screen kept in the agent's
 * folder (`tui-screen.txt`), and the server killed by PID whatever happens.
 */
async function inTui(ctx, env, { label, seconds, argv }, drive) {
  ctx.log(`${ctx.name}: ${label}`);
  const started = Date.now();
  const quoted = (arg) => `'${arg.replaceAll("'", "'\\''")}'`;
  const command = ['timeout', '--foreground', String(seconds), ...argv].map(quoted).join(' ');
  const tui = await startTmux({ socket: join(ctx.dir, 'tmux.sock'), cwd: ctx.work, env, command });
  ctx.onCleanup(() => tui.kill());
  try {
    const ended = await drive(tui);
    ctx.steps.push({ label, ms: Date.now() - started, code: ended ? 0 : 'still running (killed)' });
  } finally {
    ctx.compacting(false);
    writeFileSync(join(ctx.dir, 'tui-screen.txt'), await tui.capture().catch(() => ''));
    await tui.kill();
  }
}

// ── Claude Code ──────────────────────────────────────────────────────────────
/** Claude Code on the fake model, with every switch against updates, telemetry, error reports and marketplace syncs. */
export function claudeEnv(home, modelUrl) {
  return {
    ...baseEnv(home),
    CLAUDE_CONFIG_DIR: join(home, '.claude'),
    ANTHROPIC_BASE_URL: modelUrl,
    ANTHROPIC_API_KEY: 'x',
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL: '1',
  };
}

async function driveClaude(ctx) {
  const { turns } = script(ctx.name);
  const env = claudeEnv(ctx.home, ctx.modelUrl);
  const claude = binPath('claude-code');
  const flags = ['--strict-mcp-config'];
  expectStdout(await step(ctx, 'claude -p (turn 1)', claude, ['-p', ...flags, turns[0].prompt], env), turns[0].reply, 'turn 1');
  expectStdout(await step(ctx, 'claude -p --continue (turn 2)', claude, ['-p', '--continue', ...flags, turns[1].prompt], env), turns[1].reply, 'turn 2');
  ctx.compacting(true);
  try {
    await step(ctx, 'claude -p --continue "/compact"', claude, ['-p', '--continue', ...flags, '/compact'], env);
  } finally {
    ctx.compacting(false);
  }
  expectStdout(await step(ctx, 'claude -p --continue (turn 3)', claude, ['-p', '--continue', ...flags, turns[2].prompt], env), turns[2].reply, 'turn 3');
  const projects = join(ctx.home, '.claude', 'projects');
  const files = list(projects).filter((path) => /^[^/]+\/[0-9a-f-]{36}\.jsonl$/.test(path));
  if (files.length !== 1) throw new Error(`expected one transcript under ${projects}, found ${files.length}: ${files.join(', ')}`);
  const transcript = join(projects, files[0]);
  const lines = readFileSync(transcript, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line));
  if (!lines.some((line) => line.type === 'system' && line.subtype === 'compact_boundary')) throw new Error(`${transcript} has no compact_boundary: /compact did not compact`);
  return { nativeId: files[0].split('/')[1].replace(/\.jsonl$/, ''), transcript };
}

// ── Codex ────────────────────────────────────────────────────────────────────
const CODEX_FLAGS = ['--disable', 'plugins', '--disable', 'remote_plugin', '--disable', 'in_app_updates', '--disable', 'apps', '-c', 'analytics.enabled=false'];

/** A SKIP reason when tmux is missing, for an agent that compacts only in its TUI. */
const tmuxPreflight = (why) => async () => ((await hasTmux()) === undefined ? `tmux is not installed: ${why}, which needs a terminal` : undefined);
const codexPreflight = tmuxPreflight('Codex compacts only in its TUI (/compact)');

function codexRollout(codexHome, id) {
  const sessions = join(codexHome, 'sessions');
  const found = list(sessions).filter((path) => path.endsWith(`-${id}.jsonl`));
  return found.length === 1 ? join(sessions, found[0]) : undefined;
}

const rolloutLines = (path) => readFileSync(path, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line));

async function driveCodex(ctx) {
  const { turns } = script(ctx.name);
  const codexHome = join(ctx.home, '.codex');
  mkdirSync(codexHome, { recursive: true });
  writeFileSync(join(codexHome, 'config.toml'), [
    'model = "gpt-fake"', 'model_provider = "fake"', 'approval_policy = "never"', 'sandbox_mode = "read-only"',
    'check_for_update_on_startup = false', '',
    '[model_providers.fake]', 'name = "fake"', `base_url = "${ctx.modelUrl}/v1"`, 'env_key = "FAKE_API_KEY"', 'wire_api = "responses"', '',
    `[projects."${ctx.work}"]`, 'trust_level = "trusted"', '',
  ].join('\n'));
  const env = { ...baseEnv(ctx.home), CODEX_HOME: codexHome, FAKE_API_KEY: 'x' };
  const codex = binPath('codex');
  const node = process.execPath;
  const exec = (label, args) => step(ctx, label, node, [codex, ...CODEX_FLAGS, 'exec', '--skip-git-repo-check', ...args], env);
  const first = await exec('codex exec (turn 1)', [turns[0].prompt]);
  expectStdout(first, turns[0].reply, 'turn 1');
  const id = /session id: ([0-9a-f-]{36})/.exec(first.stderr)?.[1];
  if (id === undefined) throw new Error(`codex exec printed no session id: ${lastLines(first.stderr)}`);
  expectStdout(await exec('codex exec resume (turn 2)', ['resume', id, turns[1].prompt]), turns[1].reply, 'turn 2');
  const rollout = codexRollout(codexHome, id);
  if (rollout === undefined) throw new Error(`no rollout for ${id} under ${codexHome}/sessions`);

  // /compact exists only in the TUI: resume the thread there, compact, quit.
  const argv = [node, codex, '--no-daemon', ...CODEX_FLAGS, 'resume', id];
  await inTui(ctx, env, { label: 'codex TUI /compact', seconds: 120, argv }, async (tui) => {
    let screen = '';
    const ready = await poll(async () => {
      screen = await tui.capture();
      return screen.includes(turns[1].reply.slice(0, 30)) && /›/.test(screen);
    }, 30_000);
    if (!ready) throw new Error(`the Codex TUI did not show the resumed thread within 30 s; screen: ${lastLines(screen, 4)}`);
    ctx.compacting(true);
    await tui.type('/compact');
    await poll(async () => (await tui.capture()).includes('summarize conversation'), 5000);
    await tui.key('Enter');
    const compacted = await poll(() => rolloutLines(rollout).some((line) => line.type === 'compacted'), 60_000);
    ctx.compacting(false);
    if (!compacted) throw new Error(`/compact in the Codex TUI wrote no compacted line within 60 s; screen: ${lastLines(await tui.capture(), 4)}`);
    await poll(async () => /Context compacted/.test(await tui.capture()), 10_000);
    await tui.type('/quit');
    await tui.key('Enter');
    return poll(async () => !(await tui.alive()), 15_000);
  });
  expectStdout(await exec('codex exec resume (turn 3)', ['resume', id, turns[2].prompt]), turns[2].reply, 'turn 3');
  return { nativeId: id, transcript: rollout };
}

// ── Gemini CLI ───────────────────────────────────────────────────────────────
/** Gemini CLI on the fake model: the user settings (API-key auth, no usage statistics, updates or telemetry) written into `home`, and the env. */
export function geminiEnv(home, modelUrl) {
  const settingsPath = join(home, '.gemini', 'settings.json');
  mkdirSync(join(home, '.gemini'), { recursive: true });
  const settings = {
    security: { auth: { selectedType: 'gemini-api-key' } },
    privacy: { usageStatisticsEnabled: false },
    general: { disableAutoUpdate: true },
    telemetry: { enabled: false },
  };
  writeFileSync(settingsPath, JSON.stringify(settings, null, 2));
  const env = {
    ...baseEnv(home),
    GOOGLE_GEMINI_BASE_URL: modelUrl,
    GEMINI_API_KEY: 'x',
    GEMINI_CLI_TRUST_WORKSPACE: 'true',
    GEMINI_CLI_NO_RELAUNCH: '1',
  };
  return { env, settings, settingsPath };
}

async function driveGemini(ctx) {
  const { turns } = script(ctx.name);
  const { env, settings, settingsPath } = geminiEnv(ctx.home, ctx.modelUrl);
  const gemini = [binPath('gemini-cli')];
  const node = process.execPath;
  expectStdout(await step(ctx, 'gemini -p (turn 1)', node, [...gemini, '-p', turns[0].prompt], env), turns[0].reply, 'turn 1');
  expectStdout(await step(ctx, 'gemini --resume latest -p (turn 2)', node, [...gemini, '--resume', 'latest', '-p', turns[1].prompt], env), turns[1].reply.slice(0, 40), 'turn 2');
  // Headless Gemini CLI compresses on its own when the history passes model.compressionThreshold
  // (a fraction of the model's window, checked before each turn); /compress is a TUI command.
  writeFileSync(settingsPath, JSON.stringify({ ...settings, model: { compressionThreshold: 0.0005 } }, null, 2));
  expectStdout(await step(ctx, 'gemini --resume latest -p (turn 3, compresses first)', node, [...gemini, '--resume', 'latest', '-p', turns[2].prompt], env), turns[2].reply, 'turn 3');
  const tmp = join(ctx.home, '.gemini', 'tmp');
  const files = list(tmp).filter((path) => /^[^/]+\/chats\/session-[^/]+\.jsonl$/.test(path));
  // A resume in a later minute than the file's name can leave a second file for the same session
  // id, holding only the metadata line and the session context; the conversation stays in the first.
  const withSnapshot = files.filter((path) => readFileSync(join(tmp, path), 'utf8').includes('<state_snapshot>'));
  if (withSnapshot.length !== 1) throw new Error(`expected one chat with a <state_snapshot> under ${tmp} (Gemini CLI compressed?), found ${withSnapshot.length} of ${files.length}: ${files.join(', ')}`);
  const id = (path) => path.split('/').at(-1).replace(/\.jsonl$/, '');
  const strays = files.filter((path) => path !== withSnapshot[0]).map((path) => ({ nativeId: id(path), path: join(tmp, path) }));
  return { nativeId: id(withSnapshot[0]), transcript: join(tmp, withSnapshot[0]), strays };
}

// ── opencode and Kilo ────────────────────────────────────────────────────────
/**
 * opencode 1.18.33 and its fork Kilo 7.7.7 (../shared/formats/opencode-1.18.md,
 * kilo.md): the same CLI under two names. Each gets the fake model as an
 * OpenAI-compatible provider at its own base URL prefix (so the fake can tell
 * their requests apart), the switches against model lists, updates, sharing,
 * LSP downloads, Claude Code imports and default plugins (Kilo's also against
 * its session ingest, presence, indexing, daemon and telemetry).
 */
const OPENCODE_FAMILY = {
  opencode: { command: () => [binPath('opencode')], config: ['.config', 'opencode', 'opencode.json'], database: ['.local', 'share', 'opencode', 'opencode.db'], envPrefix: 'OPENCODE', extraEnv: {} },
  kilo: {
    command: () => [process.execPath, binPath('kilo')], config: ['.config', 'kilo', 'kilo.json'], database: ['.local', 'share', 'kilo', 'kilo.db'], envPrefix: 'KILO',
    extraEnv: { KILO_DISABLE_SESSION_INGEST: '1', KILO_DISABLE_PRESENCE: '1', KILO_DISABLE_CODEBASE_INDEXING: '1', KILO_NO_DAEMON: '1', KILO_TELEMETRY_LEVEL: 'off' },
  },
};

function opencodeFamilyEnv(ctx, member) {
  const provider = { npm: '@ai-sdk/openai-compatible', name: 'Fake', options: { baseURL: `${ctx.modelUrl}/${ctx.name}/v1`, apiKey: 'x' }, models: { 'gpt-fake': { name: 'Fake GPT', limit: { context: 128000, output: 4096 } } } };
  const config = join(ctx.home, ...member.config);
  mkdirSync(join(config, '..'), { recursive: true });
  writeFileSync(config, JSON.stringify({ provider: { fake: provider }, model: 'fake/gpt-fake', small_model: 'fake/gpt-fake', autoupdate: false, share: 'disabled' }, null, 2));
  const switches = ['MODELS_FETCH', 'AUTOUPDATE', 'SHARE', 'LSP_DOWNLOAD', 'CLAUDE_CODE', 'DEFAULT_PLUGINS'];
  return { ...baseEnv(ctx.home), ...Object.fromEntries(switches.map((name) => [`${member.envPrefix}_DISABLE_${name}`, '1'])), ...member.extraEnv };
}

/** A port on 127.0.0.1 nothing listens on now, for the CLI's `serve`. */
async function freePort() {
  const server = createServer();
  await new Promise((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** One request to the CLI's own HTTP server, as JSON, bounded like a step (or by `timeoutMs`). */
async function serverCall(base, method, path, body, timeoutMs = STEP_TIMEOUT_MS) {
  const response = await globalThis.fetch(`${base}${path}`, {
    method, signal: globalThis.AbortSignal.timeout(timeoutMs),
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: HTTP ${response.status}: ${text.slice(0, 200)}`);
  return text === '' ? undefined : JSON.parse(text);
}

/**
 * Two turns with `run` and `run -c` (each prompt passed as separate words:
 * one argument holding a space would be stored with the quotes `run` adds),
 * then `serve`, where `POST /session/:id/summarize` compacts (the TUI's
 * /compact needs a terminal; `run "/compact"` is sent as a prompt) and
 * `POST /session/:id/message` sends turn 3; the server is stopped by PID.
 */
async function driveOpencodeFamily(ctx) {
  const member = OPENCODE_FAMILY[ctx.name];
  const { turns } = script(ctx.name);
  const env = opencodeFamilyEnv(ctx, member);
  const [command, ...prefix] = member.command();
  const words = (prompt) => prompt.split(' ');
  expectStdout(await step(ctx, `${ctx.name} run (turn 1)`, command, [...prefix, 'run', ...words(turns[0].prompt)], env), turns[0].reply, 'turn 1');
  expectStdout(await step(ctx, `${ctx.name} run -c (turn 2)`, command, [...prefix, 'run', '-c', ...words(turns[1].prompt)], env), turns[1].reply, 'turn 2');

  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  ctx.log(`${ctx.name}: ${ctx.name} serve on ${base}: summarize, turn 3`);
  const started = Date.now();
  const server = spawnTracked(command, [...prefix, 'serve', '--port', String(port), '--hostname', '127.0.0.1'], { cwd: ctx.work, env, label: `${ctx.name} serve` });
  ctx.onCleanup(() => server.stop());
  let sessions;
  let refused;
  const ready = await poll(async () => {
    // A request the server accepts while it is still starting may never be answered: each try is short.
    sessions = await serverCall(base, 'GET', '/session', undefined, 3000).catch((error) => void (refused = error));
    return sessions !== undefined;
  }, 60_000);
  if (!ready) throw new Error(`${ctx.name} serve did not answer GET /session within 60 s (${refused?.cause?.message ?? refused?.message}): ${lastLines(`${server.stdout}\n${server.stderr}`)}`);
  if (!Array.isArray(sessions) || sessions.length !== 1) throw new Error(`${ctx.name} serve lists ${JSON.stringify(sessions).slice(0, 200)}, expected one session`);
  const id = sessions[0].id;
  ctx.compacting(true);
  try {
    await serverCall(base, 'POST', `/session/${id}/summarize`, { providerID: 'fake', modelID: 'gpt-fake' });
  } finally {
    ctx.compacting(false);
  }
  const third = await serverCall(base, 'POST', `/session/${id}/message`, { parts: [{ type: 'text', text: turns[2].prompt }] });
  if (!JSON.stringify(third).includes(turns[2].reply)) throw new Error(`turn 3: ${ctx.name} serve answered ${JSON.stringify(third).slice(0, 200)}, not the fake's reply`);
  await server.stop();
  ctx.steps.push({ label: `${ctx.name} serve: summarize, turn 3`, ms: Date.now() - started, code: 0 });
  return { nativeId: id, transcript: join(ctx.home, ...member.database) };
}

// ── pi ───────────────────────────────────────────────────────────────────────
/**
 * pi 0.73.1 (../shared/formats/pi.md): the fake model as a `models.json`
 * provider speaking OpenAI Chat Completions at its own base URL prefix, and
 * PI_OFFLINE against version checks, package updates and install telemetry.
 * `keepRecentTokens: 12` makes the compaction keep turn 2 (prompt and reply,
 * about 17 estimated tokens) and summarize turn 1, as in the sample.
 */
function piEnv(ctx) {
  const agentDir = join(ctx.home, '.pi', 'agent');
  mkdirSync(agentDir, { recursive: true });
  const provider = {
    baseUrl: `${ctx.modelUrl}/pi/v1`, api: 'openai-completions', apiKey: 'x',
    compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
    models: [{ id: 'gpt-fake', name: 'Fake', contextWindow: 128000, maxTokens: 4096 }],
  };
  writeFileSync(join(agentDir, 'models.json'), JSON.stringify({ providers: { fake: provider } }, null, 2));
  writeFileSync(join(agentDir, 'settings.json'), JSON.stringify({ compaction: { keepRecentTokens: 12 } }, null, 2));
  return { ...baseEnv(ctx.home), PI_OFFLINE: '1', PI_SKIP_VERSION_CHECK: '1' };
}

/**
 * A child driven over JSON lines (pi's `--mode rpc`): `send` writes one
 * command, `waitFor` polls the parsed stdout lines for one that matches,
 * bounded like a step.
 */
function jsonLinesChild(ctx, command, args, env, label) {
  const child = spawnTracked(command, args, { cwd: ctx.work, env, label, stdin: 'pipe' });
  ctx.onCleanup(() => child.stop());
  const lines = [];
  let partial = '';
  child.child.stdout.on('data', (chunk) => {
    const parts = (partial + chunk).split('\n');
    partial = parts.pop();
    for (const part of parts) {
      try { lines.push(JSON.parse(part)); } catch { /* not a protocol line */ }
    }
  });
  return {
    send: (message) => child.child.stdin.write(`${JSON.stringify(message)}\n`),
    waitFor: async (what, predicate) => {
      const found = await poll(() => lines.find(predicate), STEP_TIMEOUT_MS);
      if (found === undefined) throw new Error(`${label}: no ${what} within ${STEP_TIMEOUT_MS / 1000} s: ${lastLines(child.stderr)}`);
      return found;
    },
    stop: () => child.stop(),
  };
}

/**
 * `pi -p` and `pi -c -p` for turns 1 and 2 (`/compact` in `-p` is only a
 * prompt), then `pi -c --mode rpc`: `compact`, and after its response turn 3
 * (a prompt sent while the compaction runs is answered but never recorded).
 */
async function drivePi(ctx) {
  const { turns } = script(ctx.name);
  const env = piEnv(ctx);
  const node = process.execPath;
  const pi = [binPath('pi'), '--offline', '--provider', 'fake', '--model', 'gpt-fake'];
  expectStdout(await step(ctx, 'pi -p (turn 1)', node, [...pi, '-p', turns[0].prompt], env), turns[0].reply, 'turn 1');
  expectStdout(await step(ctx, 'pi -c -p (turn 2)', node, [...pi, '-c', '-p', turns[1].prompt], env), turns[1].reply, 'turn 2');

  ctx.log(`${ctx.name}: pi -c --mode rpc: compact, turn 3`);
  const started = Date.now();
  const rpc = jsonLinesChild(ctx, node, [...pi, '-c', '--mode', 'rpc'], env, 'pi --mode rpc');
  ctx.compacting(true);
  let compacted;
  try {
    rpc.send({ id: 'compact-1', type: 'compact' });
    compacted = await rpc.waitFor('compact response', (line) => line.type === 'response' && line.command === 'compact');
  } finally {
    ctx.compacting(false);
  }
  if (compacted.success !== true) throw new Error(`pi rpc compact failed: ${JSON.stringify(compacted).slice(0, 300)}`);
  rpc.send({ id: 'prompt-3', type: 'prompt', message: turns[2].prompt });
  const ended = await rpc.waitFor('agent_end after turn 3', (line) => line.type === 'agent_end');
  if (!JSON.stringify(ended).includes(turns[2].reply)) throw new Error(`turn 3: pi rpc ended with ${JSON.stringify(ended).slice(0, 300)}, not the fake's reply`);
  await rpc.stop();
  ctx.steps.push({ label: 'pi -c --mode rpc: compact, turn 3', ms: Date.now() - started, code: 0 });

  const sessions = join(ctx.home, '.pi', 'agent', 'sessions');
  const files = list(sessions).filter((path) => /^--[^/]*--\/[^/]+_[0-9a-f-]{36}\.jsonl$/.test(path));
  if (files.length !== 1) throw new Error(`expected one session file under ${sessions}, found ${files.length}: ${files.join(', ')}`);
  const transcript = join(sessions, files[0]);
  const entries = rolloutLines(transcript);
  if (!entries.some((entry) => entry.type === 'compaction')) throw new Error(`${transcript} has no compaction entry`);
  return { nativeId: entries[0].id, transcript };
}

// ── Copilot CLI ──────────────────────────────────────────────────────────────
/**
 * Copilot CLI 1.0.102 (../shared/formats/copilot.md): its own offline BYOK
 * mode (COPILOT_OFFLINE, no GitHub account) with the fake model as the
 * OpenAI Chat Completions provider at /copilot/v1, no auto-update and no
 * client telemetry. `/compact` works in prompt mode and is not recorded as a
 * user message.
 */
async function driveCopilot(ctx) {
  const { turns } = script(ctx.name);
  const env = {
    ...baseEnv(ctx.home),
    COPILOT_OFFLINE: 'true', COPILOT_PROVIDER_BASE_URL: `${ctx.modelUrl}/copilot/v1`, COPILOT_PROVIDER_API_KEY: 'x',
    COPILOT_MODEL: 'gpt-fake', COPILOT_AUTO_UPDATE: 'false',
  };
  const copilot = [binPath('copilot'), '--allow-all-tools', '--no-auto-update', '--disable-client-telemetry'];
  const node = process.execPath;
  expectStdout(await step(ctx, 'copilot -p (turn 1)', node, [...copilot, '-p', turns[0].prompt], env), turns[0].reply, 'turn 1');
  expectStdout(await step(ctx, 'copilot --continue -p (turn 2)', node, [...copilot, '--continue', '-p', turns[1].prompt], env), turns[1].reply, 'turn 2');
  ctx.compacting(true);
  try {
    await step(ctx, 'copilot --continue -p "/compact"', node, [...copilot, '--continue', '-p', '/compact'], env);
  } finally {
    ctx.compacting(false);
  }
  expectStdout(await step(ctx, 'copilot --continue -p (turn 3)', node, [...copilot, '--continue', '-p', turns[2].prompt], env), turns[2].reply, 'turn 3');
  const state = join(ctx.home, '.copilot', 'session-state');
  const files = list(state).filter((path) => /^[0-9a-f-]{36}\/events\.jsonl$/.test(path));
  if (files.length !== 1) throw new Error(`expected one events.jsonl under ${state}, found ${files.length}: ${files.join(', ')}`);
  const transcript = join(state, files[0]);
  if (!rolloutLines(transcript).some((event) => event.type === 'session.compaction_complete' && event.data?.success === true)) {
    throw new Error(`${transcript} has no successful session.compaction_complete: /compact did not compact`);
  }
  return { nativeId: files[0].split('/')[0], transcript };
}

// ── Cline ────────────────────────────────────────────────────────────────────
/**
 * Cline 3.0.65 (../shared/formats/cline.md): the fake model as its
 * OpenAI-compatible provider at /cline/v1 (`cline auth`), telemetry and
 * auto-update off in its global settings and env, the local session backend.
 * Only the first prompt runs headless: `--id` (resume) and `/compact` need a
 * terminal, so turns 2 and 3 and the compaction run in the TUI under tmux.
 */
function clineEnv(ctx, hubPort) {
  const settings = join(ctx.home, '.cline', 'data', 'settings');
  mkdirSync(settings, { recursive: true });
  writeFileSync(join(settings, 'global-settings.json'), JSON.stringify({ telemetryOptOut: true, autoUpdateEnabled: false }, null, 2));
  // The TUI starts a hub daemon: on a port of our choosing, found free on loopback.
  return { ...baseEnv(ctx.home), CLINE_NO_AUTO_UPDATE: '1', CLINE_SESSION_BACKEND_MODE: 'local', CLINE_HUB_PORT: String(hubPort) };
}

/** Processes whose command line holds `marker` and whose HOME is `home`: the detached helpers a CLI under test left behind. */
function leftBehind(marker, home) {
  const read = (pid, file) => { try { return readFileSync(`/proc/${pid}/${file}`, 'latin1'); } catch { return ''; } };
  return readdirSync('/proc').filter((pid) => /^\d+$/.test(pid)).map(Number)
    .filter((pid) => read(pid, 'cmdline').includes(marker) && read(pid, 'environ').split('\0').includes(`HOME=${home}`));
}

function killByPid(pids) {
  for (const pid of pids) {
    try { process.kill(pid, 'SIGKILL'); } catch { /* already gone */ }
  }
}

async function driveCline(ctx) {
  const { turns } = script(ctx.name);
  const env = clineEnv(ctx, await freePort());
  const cline = [process.execPath, binPath('cline')];
  // The hub daemon the TUI starts outlives it (its parent becomes PID 1): stopped by PID, found by its marker and our HOME.
  ctx.onCleanup(() => killByPid(leftBehind('--cline-hub-daemon', ctx.home)));
  await step(ctx, 'cline auth (the fake model)', cline[0], [cline[1], 'auth', '--provider', 'openai', '--apikey', 'x', '--modelid', 'gpt-fake', '--baseurl', `${ctx.modelUrl}/cline/v1`], env);
  expectStdout(await step(ctx, 'cline (turn 1, headless)', cline[0], [cline[1], turns[0].prompt], env), turns[0].reply, 'turn 1');
  const sessions = join(ctx.home, '.cline', 'data', 'sessions');
  const ids = list(sessions).filter((path) => /^[^/]+\/[^/]+\.messages\.json$/.test(path)).map((path) => path.split('/')[0]);
  if (ids.length !== 1) throw new Error(`expected one session under ${sessions}, found ${ids.length}: ${ids.join(', ')}`);
  const id = ids[0];
  const messagesFile = join(sessions, id, `${id}.messages.json`);
  const sidecar = join(sessions, id, `${id}.compaction.json`);
  const saved = (text) => existsSync(messagesFile) && readFileSync(messagesFile, 'utf8').includes(text);

  await inTui(ctx, env, { label: 'cline TUI: turn 2, /compact, turn 3', seconds: 180, argv: [...cline, '--id', id] }, async (tui) => {
    let screen = '';
    const screenShows = (text, ms) => poll(async () => (screen = await tui.capture()).includes(text), ms);
    if (!(await screenShows(turns[0].reply.slice(0, 30), 30_000))) throw new Error(`the Cline TUI did not show the resumed session within 30 s; screen: ${lastLines(screen, 6)}`);
    await tui.settle();
    await tui.submit(turns[1].prompt);
    if (!(await poll(() => saved(turns[1].reply), 45_000))) throw new Error(`turn 2 in the Cline TUI was not saved within 45 s; screen: ${lastLines(screen = await tui.capture(), 6)}`);
    // The reply is saved before the TUI is done with the turn: a line sent before it settles is queued, not run.
    await tui.settle();
    ctx.compacting(true);
    await tui.submit('/compact');
    const compacted = await poll(() => existsSync(sidecar), 45_000);
    ctx.compacting(false);
    if (!compacted) throw new Error(`/compact in the Cline TUI wrote no ${id}.compaction.json within 45 s; screen: ${lastLines(screen = await tui.capture(), 6)}`);
    await screenShows('Context compacted', 10_000);
    await tui.settle();
    await tui.submit(turns[2].prompt);
    if (!(await poll(() => saved(turns[2].reply), 45_000))) throw new Error(`turn 3 in the Cline TUI was not saved within 45 s; screen: ${lastLines(screen = await tui.capture(), 6)}`);
    await tui.key('C-c', 2);
    return poll(async () => !(await tui.alive()), 10_000);
  });
  return { nativeId: id, transcript: messagesFile };
}

// ── Qwen Code ────────────────────────────────────────────────────────────────
/**
 * Qwen Code 0.24.4 (../shared/formats/qwen-code.md): OpenAI auth with the fake
 * model at /qwen-code/v1, usage statistics, telemetry, auto-update and the
 * update nag off. `-c "/compress"` compresses headless (and is not recorded
 * as a prompt); it refuses unless the history's reported prompt size exceeds
 * the summary's, so the fake reports a large prompt for this agent.
 */
/** Qwen Code's user settings written into `home`, the env, and the command (after node) every run of it takes. */
export function qwenSetup(home, modelUrl) {
  mkdirSync(join(home, '.qwen'), { recursive: true });
  writeFileSync(join(home, '.qwen', 'settings.json'), JSON.stringify({
    privacy: { usageStatisticsEnabled: false },
    telemetry: { enabled: false },
    general: { disableAutoUpdate: true, disableUpdateNag: true },
    security: { auth: { selectedType: 'openai' } },
  }, null, 2));
  const env = { ...baseEnv(home), OPENAI_API_KEY: 'x', OPENAI_BASE_URL: `${modelUrl}/qwen-code/v1`, OPENAI_MODEL: 'gpt-fake' };
  return { env, qwen: [binPath('qwen-code'), '--auth-type', 'openai', '-m', 'gpt-fake', '--yolo'] };
}

async function driveQwen(ctx) {
  const { turns } = script(ctx.name);
  const { env, qwen } = qwenSetup(ctx.home, ctx.modelUrl);
  const node = process.execPath;
  expectStdout(await step(ctx, 'qwen (turn 1)', node, [...qwen, turns[0].prompt], env), turns[0].reply, 'turn 1');
  expectStdout(await step(ctx, 'qwen -c (turn 2)', node, [...qwen, '-c', turns[1].prompt], env), turns[1].reply, 'turn 2');
  ctx.compacting(true);
  try {
    await step(ctx, 'qwen -c "/compress"', node, [...qwen, '-c', '/compress'], env);
  } finally {
    ctx.compacting(false);
  }
  expectStdout(await step(ctx, 'qwen -c (turn 3)', node, [...qwen, '-c', turns[2].prompt], env), turns[2].reply, 'turn 3');
  const projects = join(ctx.home, '.qwen', 'projects');
  const files = list(projects).filter((path) => /^[^/]+\/chats\/[0-9a-f-]{36}\.jsonl$/.test(path));
  if (files.length !== 1) throw new Error(`expected one chat under ${projects}, found ${files.length}: ${files.join(', ')}`);
  const transcript = join(projects, files[0]);
  if (!rolloutLines(transcript).some((line) => line.subtype === 'chat_compression')) throw new Error(`${transcript} has no chat_compression line: /compress did not compress`);
  return { nativeId: files[0].split('/').at(-1).replace(/\.jsonl$/, ''), transcript };
}

// ── Factory Droid ────────────────────────────────────────────────────────────
/**
 * Factory Droid 0.225.2 (../shared/formats/factory-droid.md): its own airgap
 * mode (no login) with the fake model as a BYOK `customModels` entry speaking
 * Chat Completions at /factory-droid/v1, auto-update off. `droid exec` writes
 * turn 1; `exec -s` cannot continue in airgap mode (it fetches the session
 * from the cloud), so turn 2, `/compress` and turn 3 run in the TUI
 * (`droid --resume`) under tmux. `/compress` starts a new session whose
 * first record is the summary; turn 3 goes there.
 */
const DROID_MODEL = 'custom:Fake-0';

function droidEnv(ctx) {
  const factory = join(ctx.home, '.factory');
  mkdirSync(factory, { recursive: true });
  const model = { model: 'gpt-fake', displayName: 'Fake', baseUrl: `${ctx.modelUrl}/factory-droid/v1`, apiKey: 'x', provider: 'generic-chat-completion-api', maxOutputTokens: 4096 };
  writeFileSync(join(factory, 'settings.json'), JSON.stringify({ customModels: [model], enableDroidAutoUpdate: false }, null, 2));
  return { ...baseEnv(ctx.home), FACTORY_AIRGAP_ENABLED: 'true', FACTORY_DROID_AUTO_UPDATE_ENABLED: 'false' };
}

async function driveDroid(ctx) {
  const { turns } = script(ctx.name);
  const env = droidEnv(ctx);
  const droid = binPath('factory-droid');
  expectStdout(await step(ctx, 'droid exec (turn 1)', droid, ['exec', '-m', DROID_MODEL, '--auto', 'low', turns[0].prompt], env), turns[0].reply, 'turn 1');
  const sessions = join(ctx.home, '.factory', 'sessions');
  const files = () => list(sessions).filter((path) => /^[^/]+\/[0-9a-f-]{36}\.jsonl$/.test(path)).map((path) => join(sessions, path));
  const first = files();
  if (first.length !== 1) throw new Error(`expected one session under ${sessions}, found ${first.length}: ${first.join(', ')}`);
  const parent = first[0];
  const idOf = (path) => path.split('/').at(-1).replace(/\.jsonl$/, '');
  const holds = (path, text) => existsSync(path) && readFileSync(path, 'utf8').includes(text);

  let child;
  await inTui(ctx, env, { label: 'droid TUI: turn 2, /compress, turn 3', seconds: 180, argv: [droid, '--resume', idOf(parent)] }, async (tui) => {
    let screen = '';
    const screenShows = (pattern, ms) => poll(async () => pattern.test(screen = await tui.capture()), ms);
    const fail = (what) => new Error(`${what}; screen: ${lastLines(screen, 6)}`);
    // A fresh home has not trusted the work folder: droid asks first.
    if (!(await screenShows(/trust/i, 30_000))) throw fail('the droid TUI asked nothing about trusting the folder within 30 s');
    await tui.key('Enter');
    if (!(await screenShows(new RegExp(turns[0].reply.slice(0, 25)), 20_000))) throw fail('the droid TUI did not show the resumed session within 20 s');
    // Each line is sent once the screen is still: a TUI at work can queue or drop it.
    await tui.settle();
    await tui.submit(turns[1].prompt);
    if (!(await poll(() => holds(parent, turns[1].reply), 45_000))) throw fail('turn 2 in the droid TUI was not saved within 45 s');
    await tui.settle();
    ctx.compacting(true);
    await tui.submit('/compress');
    if (!(await screenShows(/Compress session/i, 15_000))) throw fail('/compress asked for no confirmation within 15 s');
    await tui.key('Enter');
    child = await poll(() => files().find((path) => path !== parent && holds(path, '"compaction_state"')), 45_000);
    ctx.compacting(false);
    if (child === undefined) throw fail('/compress started no session with a compaction_state within 45 s');
    await tui.settle();
    await tui.submit(turns[2].prompt);
    if (!(await poll(() => holds(child, turns[2].reply), 45_000))) throw fail('turn 3 in the droid TUI was not saved within 45 s');
    await tui.key('C-c', 2);
    return poll(async () => !(await tui.alive()), 10_000);
  });
  // The session the user sees after /compress is the child; the parent stays a session of its own, listed too.
  return { nativeId: idOf(child), transcript: child, alsoListed: [{ nativeId: idOf(parent), why: 'the session /compress left behind' }] };
}

// ── Continue ─────────────────────────────────────────────────────────────────
/**
 * Continue's `cn` 1.5.47 (../shared/formats/continue.md): the fake model as an
 * `openai` provider at /continue/v1 in a `config.yaml`, telemetry and metrics
 * off. Turns 1 and 2 headless (`-p`, `-p --resume`); `cn -p "/compact"`
 * compacts in memory only and saves nothing, so the compaction and turn 3 run
 * in the TUI (`cn --resume`) under tmux, whose `/compact` rewrites the saved
 * history to start at the summary.
 */
function continueSetup(ctx) {
  const dir = join(ctx.home, '.continue');
  mkdirSync(dir, { recursive: true });
  const config = join(dir, 'config.yaml');
  writeFileSync(config, [
    'name: fake-assistant', 'version: 0.0.1', 'schema: v1', 'models:',
    '  - name: Fake GPT', '    provider: openai', '    model: gpt-fake', `    apiBase: ${ctx.modelUrl}/continue/v1`, '    apiKey: x',
    '    roles: [chat, edit, apply, summarize]', '',
  ].join('\n'));
  const env = { ...baseEnv(ctx.home), CONTINUE_CLI_ENABLE_TELEMETRY: '0', CONTINUE_METRICS_ENABLED: '0' };
  return { config, env };
}

async function driveContinue(ctx) {
  const { turns } = script(ctx.name);
  const { config, env } = continueSetup(ctx);
  const cn = [binPath('continue'), '--config', config, '--auto'];
  const node = process.execPath;
  expectStdout(await step(ctx, 'cn -p (turn 1)', node, [...cn, '-p', turns[0].prompt], env), turns[0].reply, 'turn 1');
  expectStdout(await step(ctx, 'cn -p --resume (turn 2)', node, [...cn, '-p', '--resume', turns[1].prompt], env), turns[1].reply, 'turn 2');
  const sessions = join(ctx.home, '.continue', 'sessions');
  const files = list(sessions).filter((path) => /^[0-9a-f-]{36}\.json$/.test(path));
  if (files.length !== 1) throw new Error(`expected one session under ${sessions}, found ${files.length}: ${files.join(', ')}`);
  const transcript = join(sessions, files[0]);
  const saved = () => { try { return JSON.parse(readFileSync(transcript, 'utf8')); } catch { return undefined; } };
  const compacted = () => saved()?.history?.some((item) => item.conversationSummary !== undefined) === true;
  const holds = (text) => existsSync(transcript) && readFileSync(transcript, 'utf8').includes(text);

  await inTui(ctx, env, { label: 'cn TUI: /compact, turn 3', seconds: 180, argv: [node, ...cn, '--resume'] }, async (tui) => {
    let screen = '';
    const fail = (what) => new Error(`${what}; screen: ${lastLines(screen, 6)}`);
    if (!(await poll(async () => (screen = await tui.capture()).includes(turns[1].reply.slice(0, 25)), 30_000))) throw fail('the cn TUI did not show the resumed session within 30 s');
    // An Enter the TUI takes while it is still busy is lost: each line is sent once the screen is still.
    await tui.settle();
    ctx.compacting(true);
    await tui.submit('/compact');
    const done = await poll(compacted, 45_000);
    ctx.compacting(false);
    if (!done) throw fail('/compact in the cn TUI saved no conversationSummary within 45 s');
    if (!(await poll(async () => (screen = await tui.capture()).includes('compacted successfully'), 15_000))) throw fail('the cn TUI did not report the compaction within 15 s');
    await tui.settle();
    await tui.submit(turns[2].prompt);
    if (!(await poll(() => holds(turns[2].reply), 45_000))) throw fail('turn 3 in the cn TUI was not saved within 45 s');
    await tui.settle();
    await tui.submit('/exit');
    return poll(async () => !(await tui.alive()), 10_000);
  });
  return { nativeId: files[0].replace(/\.json$/, ''), transcript };
}

// ── OpenClaw ─────────────────────────────────────────────────────────────────
/**
 * OpenClaw 2026.9.6 (packages/sources/README.md, "OpenClaw"), on Node 24 (it
 * needs >= 24.16). `~/.openclaw/openclaw.json` names the fake model as an
 * OpenAI Chat Completions provider at /openclaw/v1, turns the update check
 * and the remote model catalog's refresh off and puts the gateway on a free
 * loopback port with a token; the env
 * skips channels, cron, the Gmail watcher, the canvas and browser-control
 * hosts, Bonjour (mDNS), the startup model prewarm, auto-update and the
 * respawn. `agent --local --session-id` writes turns 1 and 2; `/compact` is
 * refused in `--message`, so `openclaw gateway` runs (stopped by PID) while
 * `openclaw sessions compact <key>` compacts through it; turn 3 is `agent
 * --local` again (refused while a gateway runs for the state folder).
 */
function openclawSetup(ctx, port, token) {
  const state = join(ctx.home, '.openclaw');
  mkdirSync(state, { recursive: true });
  const provider = { api: 'openai-completions', baseUrl: `${ctx.modelUrl}/openclaw/v1`, apiKey: 'x', models: [{ id: 'gpt-fake', name: 'Fake GPT', contextWindow: 128000, maxTokens: 4096 }] };
  writeFileSync(join(state, 'openclaw.json'), JSON.stringify({
    models: { providers: { fake: provider }, catalogRefresh: { enabled: false } },
    agents: { defaults: { model: { primary: 'fake/gpt-fake' } } },
    update: { checkOnStart: false },
    gateway: { mode: 'local', port, bind: 'loopback', auth: { mode: 'token', token } },
  }, null, 2));
  const switches = ['SKIP_CHANNELS', 'SKIP_CRON', 'SKIP_GMAIL_WATCHER', 'SKIP_CANVAS_HOST', 'SKIP_BROWSER_CONTROL_SERVER', 'SKIP_STARTUP_MODEL_PREWARM', 'DISABLE_BONJOUR', 'NO_AUTO_UPDATE', 'NO_RESPAWN'];
  return { ...baseEnv(ctx.home), ...Object.fromEntries(switches.map((name) => [`OPENCLAW_${name}`, '1'])) };
}

/** The OpenClaw agent database of the default agent under a home, opened read-only by the harness's Node. */
async function openclawEvents(home, sessionId) {
  const { DatabaseSync } = await import('node:sqlite');
  const database = new DatabaseSync(join(home, '.openclaw', 'agents', 'main', 'agent', 'openclaw-agent.sqlite'), { readOnly: true });
  try {
    return database.prepare('SELECT seq, event_json FROM transcript_events WHERE session_id = ? ORDER BY seq').all(sessionId).map((row) => (row.event_json === null ? {} : JSON.parse(row.event_json)));
  } finally {
    database.close();
  }
}

/**
 * The prompt of an OpenClaw request: its newest user message that is not the
 * `<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>` block OpenClaw sends after it.
 */
function openclawPrompt(body) {
  const texts = (body.messages ?? []).filter((message) => message.role === 'user').map((message) => userTurns('chat', { messages: [message] })[0] ?? '');
  return texts.findLast((text) => !text.startsWith('<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>')) ?? '';
}

async function driveOpenclaw(ctx) {
  const { turns } = script(ctx.name);
  const port = await freePort();
  const token = `sessref-e2e-${port}`;
  const env = openclawSetup(ctx, port, token);
  const openclaw = [binPath('openclaw')];
  const node = binPath('node24');
  const sessionId = `sessref-e2e-${Date.now().toString(36)}`;
  const agent = (prompt) => [...openclaw, 'agent', '--local', '--session-id', sessionId, '--message', prompt, '--json'];
  expectStdout(await step(ctx, 'openclaw agent --local (turn 1)', node, agent(turns[0].prompt), env), turns[0].reply, 'turn 1');
  expectStdout(await step(ctx, 'openclaw agent --local (turn 2)', node, agent(turns[1].prompt), env), turns[1].reply, 'turn 2');

  ctx.log(`${ctx.name}: openclaw gateway on 127.0.0.1:${port}: sessions compact`);
  const started = Date.now();
  const gateway = spawnTracked(node, [...openclaw, 'gateway', '--allow-unconfigured', '--auth', 'token', '--token', token, '--bind', 'loopback', '--port', String(port)], { cwd: ctx.work, env, label: 'openclaw gateway' });
  ctx.onCleanup(() => gateway.stop());
  const listening = await poll(() => new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port }, () => { socket.end(); resolve(true); });
    socket.on('error', () => resolve(false));
  }), 60_000);
  if (!listening) throw new Error(`openclaw gateway did not listen on ${port} within 60 s: ${lastLines(`${gateway.stdout}\n${gateway.stderr}`)}`);
  const sessionKey = `agent:main:explicit:${sessionId}`;
  ctx.compacting(true);
  try {
    await step(ctx, 'openclaw sessions compact <key>', node, [...openclaw, 'sessions', 'compact', sessionKey, '--token', token, '--timeout', '60000', '--json'], env);
  } finally {
    ctx.compacting(false);
  }
  await gateway.stop();
  ctx.steps.push({ label: 'openclaw gateway: sessions compact', ms: Date.now() - started, code: 0 });
  if (!(await openclawEvents(ctx.home, sessionId)).some((event) => event.type === 'compaction')) throw new Error(`session ${sessionId} has no compaction event: sessions compact did not compact`);
  expectStdout(await step(ctx, 'openclaw agent --local (turn 3)', node, agent(turns[2].prompt), env), turns[2].reply, 'turn 3');
  return { nativeId: sessionId, transcript: join(ctx.home, '.openclaw', 'agents', 'main', 'agent', 'openclaw-agent.sqlite') };
}

export const DRIVERS = {
  'claude-code': { drive: driveClaude, api: 'anthropic', label: `Claude Code ${AGENTS['claude-code'].version}` },
  codex: { drive: driveCodex, api: 'responses', label: `Codex ${AGENTS.codex.version}`, preflight: codexPreflight },
  'gemini-cli': { drive: driveGemini, api: 'gemini', label: `Gemini CLI ${AGENTS['gemini-cli'].version}` },
  opencode: { drive: driveOpencodeFamily, api: 'chat@opencode', label: `opencode ${AGENTS.opencode.version}` },
  kilo: { drive: driveOpencodeFamily, api: 'chat@kilo', label: `Kilo ${AGENTS.kilo.version}` },
  pi: { drive: drivePi, api: 'chat@pi', label: `pi ${AGENTS.pi.version}` },
  copilot: { drive: driveCopilot, api: 'chat@copilot', label: `Copilot CLI ${AGENTS.copilot.version}` },
  cline: { drive: driveCline, api: 'chat@cline', label: `Cline ${AGENTS.cline.version}`, preflight: tmuxPreflight('Cline resumes a session and compacts only in its TUI') },
  'qwen-code': { drive: driveQwen, api: 'chat@qwen-code', label: `Qwen Code ${AGENTS['qwen-code'].version}`, promptTokens: 60_000 },
  'factory-droid': { drive: driveDroid, api: 'chat@factory-droid', label: `Factory Droid ${AGENTS['factory-droid'].version}`, preflight: tmuxPreflight('droid continues a session and compresses only in its TUI when offline') },
  continue: { drive: driveContinue, api: 'chat@continue', label: `Continue ${AGENTS.continue.version}`, preflight: tmuxPreflight('Continue saves a compaction only from its TUI') },
  openclaw: {
    drive: driveOpenclaw, api: 'chat@openclaw', promptText: openclawPrompt,
    // OpenClaw's stored summary ends with "Recent turns preserved verbatim": the summarized replies appear in it, and only there.
    outsideSummary: (seen) => seen.replace(/<summary>.*?<\/summary>/g, ''),
    label: `OpenClaw ${AGENTS.openclaw.version} (Node ${RUNTIMES.node24.version})`,
    // Each OpenClaw command takes 10 to 60 s to start on a busy 2-core machine, and the gateway as long: five of them.
    timeoutMs: 6 * 60_000,
  },
};
