/**
 * `npm run test:agents`: the real Claude Code, Codex, Gemini CLI, opencode,
 * Kilo, pi, Copilot, Cline, Qwen Code, Factory Droid, Continue and OpenClaw CLIs (pinned, installed once into `.cache/agents/`) each write a real multi-turn session
 * with a compaction, offline, against our fake model on 127.0.0.1; then the
 * built sessref CLI must list each session with its source, and `show` must
 * give exactly the conversation the agent itself keeps after the compaction:
 * the checkpoint holding the summary the fake model returned, then the later
 * turns (for Codex also the user prompts its compaction retains), never tool
 * output or injected context.
 *
 * Then the real Gemini CLI and Qwen Code (headless) and Claude Code (its TUI) cite
 * sessions through `sessref mcp`, set up with the README's commands: a dsh
 * session and another agent's session from this run must reach the fake
 * model in the user's turn as the exact snapshot `sessref prepare` builds,
 * with no session-reading tool offered to the model (lib/mcp.mjs).
 *
 * The run re-executes itself inside a loopback-only network namespace when
 * the machine allows it (lib/isolation.mjs); otherwise it says so and relies
 * on the env vars and flags alone.
 *
 * Flags: --no-build (use the existing packages/cli/dist), --install-only,
 * --only=<agents> (the names of lib/agents.mjs's DRIVERS, comma-separated), --no-mcp (skip the MCP clients), --no-netns,
 * --keep (keep the temp homes).
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import process from 'node:process';
import { clearTimeout, setTimeout } from 'node:timers';
import { fileURLToPath } from 'node:url';
import { childEnv, REPO_ROOT } from '../dsh-app/lib/install.mjs';
import { killAllSync, lastLines, run, spawnTracked, stopAll } from '../dsh-app/lib/proc.mjs';
import { DRIVERS, script } from './lib/agents.mjs';
import { startFakeModel } from './lib/fake-model.mjs';
import { AGENTS, CACHE_DIR, ensureInstall } from './lib/install.mjs';
import { detectIsolation, startDnsLogger, wrapped } from './lib/isolation.mjs';
import { foreignSessionFor, McpFailure, mcpClaude, mcpHeadless } from './lib/mcp.mjs';

const ARGS = process.argv.slice(2);
const FLAGS = new Set(ARGS.filter((arg) => !arg.includes('=')));
const option = (name) => ARGS.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
const INSIDE = option('inside');
const ONLY = option('only')?.split(',') ?? Object.keys(DRIVERS);
/** The clients that cite sessions through `sessref mcp` (lib/mcp.mjs), each after the agents' own runs. */
const MCP_CLIENTS = {
  'gemini-cli': { drive: (ctx, foreign) => mcpHeadless(ctx, foreign, 'gemini-cli'), api: 'gemini', label: `Gemini CLI ${AGENTS['gemini-cli'].version} -p "/ref --session=<id>"` },
  'qwen-code': { drive: (ctx, foreign) => mcpHeadless(ctx, foreign, 'qwen-code'), api: 'chat@qwen-code', label: `Qwen Code ${AGENTS['qwen-code'].version} "/ref --session=<id>"` },
  'claude-code': { drive: (ctx, foreign) => mcpClaude(ctx, foreign, AGENTS['claude-code'].version), api: 'anthropic', label: `Claude Code ${AGENTS['claude-code'].version} TUI /mcp__sessref__ref <id>` },
};
const MCP_REPLY = 'Fake model: the cited snapshot arrived.';
const CLI_BIN = join(REPO_ROOT, 'packages/cli/bundle/bin.js');
const FINDINGS = '/tmp/agents-findings';
const HARD_TIMEOUT_MS = 15 * 60_000;
const AGENT_TIMEOUT_MS = 4 * 60_000;
const started = Date.now();

class Failure extends Error {}
class Skip extends Error {}
const check = (condition, message) => { if (!condition) throw new Failure(message); };
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
const log = (line) => process.stderr.write(`[agents ${seconds(Date.now() - started).padStart(7)}] ${line}\n`);
const out = (line) => process.stdout.write(`${line}\n`);

// ── outside: install, build, then re-run inside the namespace ────────────────
async function outside() {
  const major = Number(process.versions.node.split('.')[0]);
  check(major >= 22, `Node ${process.version} cannot run sessref: run this as npm run test:agents (Node 22 from the node@22 devDependency)`);
  check(ONLY.every((name) => name in DRIVERS), `--only takes ${Object.keys(DRIVERS).join(',')}`);
  const install = await ensureInstall({ log });
  if (install.installed) log(`install: ${install.networkFailure ?? install.error ?? 'done'} in ${seconds(install.ms)}`);
  if (install.error !== undefined) throw new Failure(`install: ${install.error}`);
  if (FLAGS.has('--install-only')) {
    const problems = Object.entries(install.problems);
    out(`agents: install ${problems.length === 0 ? (install.installed ? `made in ${seconds(install.ms)}` : 'already current') : `incomplete: ${problems.map(([, why]) => why).join('; ')}`} (${CACHE_DIR})`);
    return problems.length === 0 ? 0 : 1;
  }
  if (!FLAGS.has('--no-build')) {
    log('npm run build');
    const built = await run('npm', ['run', 'build'], { cwd: REPO_ROOT, env: childEnv(), timeoutMs: 5 * 60_000, label: 'npm run build' });
    check(!built.timedOut && built.code === 0, `npm run build failed: ${lastLines(`${built.stdout}\n${built.stderr}`)}`);
  }
  check(existsSync(CLI_BIN), `${CLI_BIN} is missing: run npm run build`);
  const isolation = FLAGS.has('--no-netns') ? { mode: 'none', reasons: ['--no-netns'] } : await detectIsolation();
  const inner = [process.execPath, fileURLToPath(import.meta.url), ...ARGS.filter((arg) => !arg.startsWith('--inside=')),
    `--inside=${isolation.mode === 'none' ? 'none' : 'netns'}`,
    ...Object.entries(install.problems).map(([name, why]) => `--uninstalled=${name}:${install.networkFailure ? `${why} (${install.networkFailure})` : why}`)];
  if (isolation.mode === 'none') {
    out(`agents: no network namespace here (${isolation.reasons.join('; ')}): the CLIs run with the env vars and flags alone, and could reach outside hosts they are not told to avoid`);
  } else {
    log(`isolation: ${isolation.mode}, loopback only`);
  }
  const [command, args] = isolation.mode === 'none' ? [inner[0], inner.slice(1)] : wrapped(isolation, inner);
  const child = spawnTracked(command, args, { cwd: REPO_ROOT, env: process.env, label: 'agents (inside)' });
  child.child.stdout.pipe(process.stdout);
  child.child.stderr.pipe(process.stderr);
  const timer = setTimeout(() => { log('hard timeout'); void child.stop(); }, HARD_TIMEOUT_MS + 30_000);
  const { code } = await child.exited;
  clearTimeout(timer);
  return code ?? 1;
}

// ── inside ───────────────────────────────────────────────────────────────────
/** Which agent a request belongs to, by the API it speaks. */
const AGENT_OF_API = Object.fromEntries(Object.entries(DRIVERS).map(([name, driver]) => [driver.api, name]));
const compactingNow = new Set();
/** While the MCP clients run, every turn gets one fixed reply: they cite sessions, they follow no script. */
let mcpPhase = false;

function summaryText(name) {
  const { summary } = script(name);
  if (name === 'claude-code') return `<analysis>The fake model read the conversation.</analysis>\n<summary>${summary}</summary>`;
  if (name === 'gemini-cli') return `<state_snapshot>\n${summary}\n</state_snapshot>`;
  return summary;
}

/** A compaction request: for Claude Code and Codex, anything during their /compact step; for Gemini CLI, the compressor's two requests. */
function isCompaction(name, request) {
  if (name === 'gemini-cli') return request.text.includes('<state_snapshot>');
  return compactingNow.has(name);
}

/**
 * A side request for a session title (Factory Droid's TUI after a new
 * session's first prompt, asked in its system prompt; Continue's TUI after a
 * turn, asked in the user message): it carries the prompt, but it is not the turn.
 */
function isTitleRequest(request) {
  const system = (request.body.messages ?? []).filter((message) => message.role === 'system');
  return !(request.body.tools?.length > 0) && /generates concise session titles|reply with a title for the chat/i.test(`${JSON.stringify(system)}\n${request.text}`);
}

function answer(request) {
  const name = AGENT_OF_API[request.api];
  if (request.api === 'gemini' && request.body.generationConfig?.responseMimeType === 'application/json') {
    return { text: JSON.stringify({ reasoning: 'The fake model routes every turn.', next_speaker: 'user', model_choice: 'flash' }) };
  }
  if (mcpPhase) return { text: MCP_REPLY };
  if (isTitleRequest(request)) return { text: `Fake title for ${name}` };
  // The prompt size every reply reports, for an agent that judges a compaction by it (Qwen Code).
  const sized = DRIVERS[name]?.promptTokens === undefined ? {} : { promptTokens: DRIVERS[name].promptTokens };
  if (isCompaction(name, request)) return { text: summaryText(name), compaction: true, ...sized };
  // An agent that sends its own context after the prompt says which user text is the prompt.
  const text = DRIVERS[name]?.promptText?.(request.body) ?? request.text;
  const index = script(name).turns.findIndex((t) => text.includes(t.prompt));
  return index < 0 ? { text: 'Fake model: nothing to add.', ...sized } : { text: script(name).turns[index].reply, turn: index + 1, ...sized };
}

async function sessref(args, home) {
  const env = { PATH: process.env.PATH, HOME: home, NO_COLOR: '1', LANG: 'C.UTF-8' };
  const result = await run(process.execPath, [CLI_BIN, ...args], { cwd: home, env, timeoutMs: 60_000, label: `sessref ${args[0]}` });
  check(!result.timedOut, `sessref ${args.join(' ')} timed out`);
  return result;
}

const user = (text) => ({ role: 'user', text });
const assistant = (text) => ({ role: 'assistant', text });
/**
 * What each agent's compaction keeps of turns 1 and 2 beside its checkpoint
 * (`before` it, `after` it), by the agent's own rule; an agent not named
 * keeps nothing but the summary.
 */
const KEPT_BY_COMPACTION = {
  // Codex's compaction keeps the user's earlier prompts in the new history, before the summary.
  codex: (turns) => ({ before: [user(turns[0].prompt), user(turns[1].prompt)] }),
  // Claude Code 2.1.332's /compact records compactMetadata.preservedSegment (head = tail = the last
  // reply, anchor = the summary) and sends that reply to the model after the summary.
  'claude-code': (turns) => ({ after: [assistant(turns[1].reply)] }),
  // pi sends the summary, then the entries from the compaction's firstKeptEntryId: turn 2 here (keepRecentTokens 12).
  pi: (turns) => ({ after: [user(turns[1].prompt), assistant(turns[1].reply)] }),
  // Cline's sidecar holds the summary and a kept tail of the source messages: the last three here.
  cline: (turns) => ({ after: [assistant(turns[0].reply), user(turns[1].prompt), assistant(turns[1].reply)] }),
  // OpenClaw keeps pi's rule: its compaction's firstKeptEntryId is the last reply, which the model gets after the summary.
  openclaw: (turns) => ({ after: [assistant(turns[1].reply)] }),
};

/** The conversation sessref must show, from the agent's own rule for what a compaction keeps. */
function expectedConversation(name) {
  const { turns, summary } = script(name);
  const { before = [], after = [] } = KEPT_BY_COMPACTION[name]?.(turns) ?? {};
  return [...before, { role: 'user', checkpoint: true, contains: summary }, ...after, user(turns[2].prompt), assistant(turns[2].reply)];
}

const matches = (item, want) => item.role === want.role && Boolean(item.checkpoint) === Boolean(want.checkpoint)
  && (want.text !== undefined ? item.text === want.text : item.text.includes(want.contains));
const brief = (item) => `${item.role}${item.checkpoint ? ' [checkpoint]' : ''}: ${JSON.stringify((item.text ?? item.contains ?? '').slice(0, 70))}`;

/** The model's own view of the session after compaction: the fake's last turn-3 request. */
function checkModelView(name, requests) {
  const { turns, summary } = script(name);
  const last = requests.filter((r) => r.reply?.turn === 3).at(-1);
  check(last !== undefined, 'the fake model never received turn 3');
  const seen = JSON.stringify(last.body);
  check(seen.includes(JSON.stringify(summary).slice(1, -1)), 'the turn-3 request to the model does not carry the summary: the agent did not use its compaction');
  const expected = expectedConversation(name);
  // An agent whose summary quotes the turns it replaced says what of the request lies outside the summary.
  const unsummarized = DRIVERS[name]?.outsideSummary?.(seen) ?? seen;
  for (const gone of turns.slice(0, 2).map((t) => t.reply).filter((reply) => !expected.some((item) => item.text === reply))) {
    check(!unsummarized.includes(gone.slice(0, 40)), `the turn-3 request still carries ${JSON.stringify(gone.slice(0, 40))}: the compaction did not drop it`);
  }
  for (const want of expected.filter((item) => item.text !== undefined && item.text !== turns[2].reply)) {
    check(seen.includes(JSON.stringify(want.text).slice(1, -1)), `the turn-3 request lacks ${JSON.stringify(want.text)}, which the expected conversation carries`);
  }
}

async function checkSessref(name, result, dir) {
  const root = join(dir, 'dsh-root', 'sessions');
  mkdirSync(root, { recursive: true });
  const listed = await sessref(['list', '--json', '--root', root], result.home);
  check(listed.code === 0, `sessref list exited ${listed.code}: ${lastLines(listed.stderr)}`);
  const rows = JSON.parse(listed.stdout);
  for (const stray of result.strays ?? []) {
    if (!rows.some((row) => row.sessionId === `${name}:${stray.nativeId}`)) continue;
    mkdirSync(join(FINDINGS, name), { recursive: true });
    copyFileSync(stray.path, join(FINDINGS, name, basename(stray.path)));
    throw new Failure(`sessref lists ${name}:${stray.nativeId}, a second file Gemini CLI wrote for session ${result.nativeId} when resuming `
      + `in a later minute: only its metadata and session context, which Gemini's own session list skips (no resumable content) (copied to ${join(FINDINGS, name)})`);
  }
  // The agent's own other sessions of this run (Factory Droid's /compress leaves the parent behind) are listed too.
  const wanted = [result.nativeId, ...(result.alsoListed ?? []).map((other) => other.nativeId)].map((id) => `${name}:${id}`);
  const mine = rows.filter((row) => row.source === name);
  check(mine.length === wanted.length, `sessref list shows ${mine.length} ${name} sessions, expected ${wanted.length} (rows: ${JSON.stringify(rows.map((row) => [row.source, row.sessionId]))})`);
  check(rows.length === mine.length, `sessref list shows rows of other sources in an empty root and a home with one agent: ${JSON.stringify(rows.map((row) => row.source))}`);
  for (const id of wanted) check(mine.some((row) => row.sessionId === id), `sessref lists ${JSON.stringify(mine.map((row) => row.sessionId))}, without ${id}`);
  const row = mine.find((candidate) => candidate.sessionId === wanted[0]);
  check(/\]\(dsh-session:[A-Za-z0-9_-]+\)$/.test(row.mention ?? ''), `the row's mention ${JSON.stringify(row.mention)} is not a dsh-session mention`);
  const shown = await sessref(['show', row.sessionId, '--json', '--root', root], result.home);
  check(shown.code === 0, `sessref show exited ${shown.code}: ${lastLines(shown.stderr)}`);
  const conversation = JSON.parse(shown.stdout).conversation ?? [];
  const expected = expectedConversation(name);
  const same = conversation.length === expected.length && expected.every((want, i) => matches(conversation[i], want));
  if (!same) {
    mkdirSync(join(FINDINGS, name), { recursive: true });
    copyFileSync(result.transcript, join(FINDINGS, name, basename(result.transcript)));
    throw new Failure(`sessref show ${row.sessionId} differs from what ${name} keeps (transcript copied to ${join(FINDINGS, name)}):\n`
      + `    expected: ${expected.map(brief).join(' | ')}\n    shown:    ${conversation.map(brief).join(' | ')}`);
  }
  return { title: row.title, items: conversation.length };
}

/**
 * One agent's or MCP client's part of the run: `body` under one
 * deadline (AGENT_TIMEOUT_MS, or the driver's own `timeoutMs`) (started by its first `inTime`, which races a
 * promise against it; `requestsSince` lists what the fake model received
 * since the part began), and `record` given PASS, SKIP or FAIL with the reason,
 * the time it took and the host names it looked up. Its cleanups run and what
 * the fake model received is written to `dir` whatever happens.
 */
async function recorded(record, { ctx, context, timeoutMs = AGENT_TIMEOUT_MS }, body) {
  const started = Date.now();
  const firstRequest = context.model.requests.length;
  const firstLookup = context.dns?.lookups.length ?? 0;
  let timer;
  let timeout;
  const inTime = (promise) => {
    timeout ??= new Promise((_, reject) => { timer = setTimeout(() => reject(new Failure(`timed out after ${seconds(timeoutMs)}`)), timeoutMs); });
    return Promise.race([promise, timeout]);
  };
  try {
    await body({ inTime, requestsSince: () => context.model.requests.slice(firstRequest) });
    record.status = 'PASS';
  } catch (error) {
    record.status = error instanceof Skip ? 'SKIP' : 'FAIL';
    record.reason = error instanceof Failure || error instanceof Skip || error instanceof McpFailure ? error.message : `${error?.message ?? error}`;
  } finally {
    clearTimeout(timer);
    for (const cleanup of ctx.cleanups) await cleanup();
    record.ms = Date.now() - started;
    // What the fake model received, for reading a failure (the homes are kept then).
    writeFileSync(join(ctx.dir, 'model-requests.json'), JSON.stringify(context.model.requests.slice(firstRequest), null, 1));
    record.lookups = context.dns?.lookups.slice(firstLookup).map((lookup) => lookup.name);
  }
  return record;
}

async function runAgent(name, context) {
  const driver = DRIVERS[name];
  const dir = join(context.runRoot, name);
  const ctx = {
    name, dir, log, steps: [], cleanups: [],
    home: join(dir, 'home'), work: join(dir, 'work'), modelUrl: context.model.url,
    compacting: (on) => (on ? compactingNow.add(name) : compactingNow.delete(name)),
    onCleanup: (fn) => ctx.cleanups.push(fn),
  };
  mkdirSync(ctx.home, { recursive: true });
  mkdirSync(ctx.work, { recursive: true });
  const record = { name, label: driver.label, steps: ctx.steps };
  return recorded(record, { ctx, context, timeoutMs: driver.timeoutMs }, async ({ inTime, requestsSince }) => {
    const uninstalled = context.uninstalled[name];
    if (uninstalled !== undefined) throw new Skip(`not installed: ${uninstalled}`);
    const preflight = await driver.preflight?.();
    if (preflight !== undefined) throw new Skip(preflight);
    const result = await inTime(driver.drive(ctx));
    const requests = requestsSince().filter((r) => r.api === driver.api);
    record.requests = requests.length;
    record.compactionRequests = requests.filter((r) => r.reply?.compaction).length;
    check(record.compactionRequests > 0, 'the fake model received no compaction request');
    checkModelView(name, requests);
    record.sessref = await inTime(checkSessref(name, { ...result, home: ctx.home }, dir));
    context.sessions[name] = { id: `${name}:${result.nativeId}`, transcript: result.transcript, home: ctx.home };
  });
}

/** One MCP client citing a dsh session and another agent's through `sessref mcp`, as the README sets it up. */
async function runMcpClient(client, context) {
  const mcp = MCP_CLIENTS[client];
  const dir = join(context.runRoot, `mcp-${client}`);
  mkdirSync(dir, { recursive: true });
  const ctx = {
    name: `mcp ${client}`, dir, log, steps: [], cleanups: [], modelUrl: context.model.url, requests: context.model.requests,
    onCleanup: (fn) => ctx.cleanups.push(fn),
  };
  const record = { name: `mcp ${client}`, label: mcp.label, steps: ctx.steps };
  // The fake model answers as an MCP client's model until this client's cleanups start.
  mcpPhase = true;
  ctx.onCleanup(() => { mcpPhase = false; });
  return recorded(record, { ctx, context }, async ({ inTime, requestsSince }) => {
    const uninstalled = context.uninstalled[client];
    if (uninstalled !== undefined) throw new Skip(`not installed: ${uninstalled}`);
    const foreign = foreignSessionFor(client, context.sessions);
    check(foreign !== undefined, `no agent session of this run to cite (every agent run failed or was skipped)`);
    record.mcp = await inTime(mcp.drive(ctx, foreign));
    record.requests = requestsSince().filter((r) => r.api === mcp.api).length;
  });
}

async function inside() {
  const context = { uninstalled: {}, sessions: {} };
  for (const arg of ARGS.filter((a) => a.startsWith('--uninstalled='))) {
    const [name, ...why] = arg.slice('--uninstalled='.length).split(':');
    context.uninstalled[name] = why.join(':');
  }
  if (INSIDE === 'netns') {
    const dns = await startDnsLogger();
    if ('error' in dns) log(`DNS logger off: ${dns.error}`);
    else context.dns = dns;
  }
  context.runRoot = mkdtempSync(join(tmpdir(), 'sessref-agents-'));
  context.model = await startFakeModel({ answer });
  log(`fake model on ${context.model.url}; homes under ${context.runRoot}`);
  const records = [];
  try {
    for (const name of ONLY) records.push(await runAgent(name, context));
    if (!FLAGS.has('--no-mcp')) {
      for (const client of Object.keys(MCP_CLIENTS).filter((name) => ONLY.includes(name))) records.push(await runMcpClient(client, context));
    }
  } finally {
    await context.model.close();
    await stopAll();
    await context.dns?.close();
  }
  out('');
  out(`isolation: ${INSIDE === 'netns' ? `network namespace, loopback only${context.dns ? '; DNS queries logged' : ''}` : 'NONE (env vars and flags only)'}`);
  for (const record of records) {
    const steps = record.steps.map((s) => `${s.label} ${seconds(s.ms)}${s.code === 0 ? '' : ` (${s.code})`}`).join(', ');
    out(`${record.status}  ${record.name} (${record.label}) in ${seconds(record.ms)}${record.status === 'SKIP' ? `: ${record.reason}` : ''}`);
    if (steps) out(`      steps: ${steps}`);
    if (record.requests !== undefined) out(`      fake model: ${record.requests} requests${record.compactionRequests === undefined ? '' : `, ${record.compactionRequests} for the compaction`}`);
    if (record.sessref) out(`      sessref: listed with its source, show gave the ${record.sessref.items} expected items (title ${JSON.stringify(record.sessref.title)})`);
    if (record.mcp) {
      out(`      set up with the README's: ${record.mcp.setup}`);
      for (const cited of record.mcp.cited) {
        const beyond = record.mcp.builtIn?.length > 0 ? ' beyond the client\'s own below' : '';
        out(`      cited ${cited.kind} ${cited.id}: its exact snapshot (${cited.text.length} chars) in the user's turn of ${cited.carrying} request(s); ${cited.tools} tools offered, none reads sessions, resources or prompts${beyond}`);
      }
      if (record.mcp.builtIn?.length > 0) out(`      offered with no MCP server too, so not sessref's (its own run's requests): ${record.mcp.builtIn.join(', ')}`);
      if (record.mcp.control) out(`      control: with sessref mcp --resources the same check flags ${record.mcp.control.join(', ')}`);
    }
    if (record.lookups !== undefined) out(`      DNS lookups: ${record.lookups.length === 0 ? 'none' : [...new Set(record.lookups)].join(', ')}`);
    if (record.status === 'FAIL') out(`      ${record.reason}`);
  }
  const failed = records.filter((record) => record.status === 'FAIL');
  out(`agents: ${failed.length === 0 ? 'PASS' : 'FAIL'} (${records.map((r) => `${r.name} ${r.status}`).join(', ')}) in ${seconds(Date.now() - started)}`);
  if (failed.length === 0 && !FLAGS.has('--keep')) rmSync(context.runRoot, { recursive: true, force: true });
  else log(`kept ${context.runRoot}`);
  return failed.length === 0 ? 0 : 1;
}

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    out(`agents: FAIL interrupted by ${signal}`);
    killAllSync();
    process.exit(130);
  });
}
process.on('exit', () => killAllSync());

const hardTimer = setTimeout(() => {
  out(`agents: FAIL hard timeout (${HARD_TIMEOUT_MS / 60_000} minutes)`);
  killAllSync();
  process.exit(1);
}, INSIDE === undefined ? HARD_TIMEOUT_MS + 20 * 60_000 : HARD_TIMEOUT_MS);
hardTimer.unref();

(INSIDE === undefined ? outside() : inside()).then((code) => process.exit(code), (error) => {
  out(`agents: FAIL ${error instanceof Failure ? error.message : `${error?.stack ?? error}`}`);
  process.exit(1);
});

