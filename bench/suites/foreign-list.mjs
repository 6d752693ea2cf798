/**
 * Suite 6 child: listing other agents' sessions, with and without the
 * persisted listing cache of @sessref/sources (its README, "Listing cache").
 *
 *   --mode corpus --home DIR --count N
 *       writes N foreign sessions under DIR (a HOME): Claude Code transcripts
 *       (half), Codex rollouts (four in ten; a quarter of those archived and
 *       zstd-compressed) and Gemini CLI JSONL chats (one in ten), each a
 *       realistic transcript of a few kilobytes: prompts, replies, tool calls
 *       and results, injected context, titles. Kept between runs.
 *   --mode in-process --home DIR --cache DIR --runs R
 *       what `sessref list` asks of the sources (listSessions, then
 *       readTitles of every id), timed in this process:
 *         baseline  a fresh localSources() whose cache cannot be used (the
 *                   cache directory is under a regular file): every
 *                   transcript read and folded, as before the cache;
 *         cold      a fresh localSources() with an empty cache directory:
 *                   every transcript read, the cache written;
 *         warm      a fresh localSources() over the cache `cold` wrote: what
 *                   a new process does after importing the package;
 *         memory    the same sources listing again: a long-lived process,
 *                   its folders watched;
 *         growing   the same, one more transcript appended to before each
 *                   listing: a long-lived process while agents write;
 *         stats     a bare stat() of every transcript, the floor of any
 *                   listing that notices a transcript that grew without
 *                   watching.
 *   --mode process --home DIR --cache DIR --root DIR --runs R
 *       whole `sessref list --json --sources claude-code,codex,gemini-cli`
 *       processes (wall time, Node start-up and module loading included),
 *       warm cache against an unusable one, beside `node -e ''` and the same
 *       command with `--sources dsh` (an empty root: the CLI's own floor).
 */
import { Buffer } from 'node:buffer';
import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { zstdCompressSync } from 'node:zlib';
import { localSources } from '@sessref/sources';
import { emitResult, parseArgs, progress } from '../lib/child.mjs';
import { median, threadCpuMs } from '../lib/stats.mjs';
import { prose, random } from '../lib/text.mjs';

const options = parseArgs();
const AGENTS = ['claude-code', 'codex', 'gemini-cli'];
const CLI = fileURLToPath(new URL('../../packages/cli/bundle/bin.js', import.meta.url));
const EPOCH = Date.parse('2026-06-01T08:00:00.000Z');

const line = (record) => `${JSON.stringify(record)}\n`;
const pad = (n, width) => String(n).padStart(width, '0');
/** A UUID unique per agent (`salt`) and session number. */
const uuidOf = (n, salt) => `${(salt * 0x10000000 + n).toString(16).padStart(8, '0')}-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;

/** A Claude Code transcript: a title, turns of prompt, tool use and result, and replies; about 6-10 KB. */
function claudeTranscript(n, next) {
  const session = uuidOf(n, 1);
  const cwd = `/work/project-${n % 50}`;
  let time = EPOCH + n * 60_000;
  let parent = null;
  let uuid = 0;
  const records = [line({ type: 'queue-operation', operation: 'enqueue', timestamp: new Date(time).toISOString(), sessionId: session })];
  const tree = (type, fields) => {
    uuid += 1;
    time += 1500;
    const id = `${session.slice(0, 8)}-r${uuid}`;
    records.push(line({ parentUuid: parent, isSidechain: false, userType: 'external', cwd, sessionId: session, version: '2.1.0', gitBranch: 'main', type, uuid: id, timestamp: new Date(time).toISOString(), ...fields }));
    parent = id;
  };
  for (let turn = 0; turn < 3; turn += 1) {
    tree('user', { message: { role: 'user', content: prose(next, 160) } });
    tree('assistant', { message: { id: `msg_${n}_${turn}a`, type: 'message', role: 'assistant', model: 'claude', content: [{ type: 'thinking', thinking: prose(next, 300), signature: 'sig' }] } });
    tree('assistant', { message: { id: `msg_${n}_${turn}a`, type: 'message', role: 'assistant', model: 'claude', content: [{ type: 'tool_use', id: `toolu_${n}_${turn}`, name: 'Bash', input: { command: 'npm test' } }] } });
    tree('user', { message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_${n}_${turn}`, content: prose(next, 900) }] }, toolUseResult: { stdout: '…' } });
    tree('assistant', { message: { id: `msg_${n}_${turn}b`, type: 'message', role: 'assistant', model: 'claude', content: [{ type: 'text', text: prose(next, 500) }] } });
  }
  records.push(line({ type: 'ai-title', aiTitle: prose(next, 30), sessionId: session }));
  return { session, text: records.join('') };
}

/** A Codex rollout: session_meta, turn context, injected context, prompts, reasoning, tool calls, replies and their events; about 8-12 KB. */
function codexRollout(n, next) {
  const thread = uuidOf(n, 2);
  let time = EPOCH + n * 60_000;
  const at = () => new Date((time += 1200)).toISOString();
  const cwd = `/work/service-${n % 40}`;
  const records = [
    line({ timestamp: at(), type: 'session_meta', payload: { id: thread, timestamp: new Date(time).toISOString(), cwd, originator: 'codex_cli_rs', cli_version: '0.171.0', source: 'cli', instructions: prose(next, 400) } }),
    line({ timestamp: at(), type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: `<environment_context>\n  <cwd>${cwd}</cwd>\n  <shell>bash</shell>\n</environment_context>` }] } }),
  ];
  for (let turn = 0; turn < 3; turn += 1) {
    const prompt = prose(next, 160);
    records.push(line({ timestamp: at(), type: 'turn_context', payload: { cwd, approval_policy: 'on-request', model: 'gpt-5' } }));
    records.push(line({ timestamp: at(), type: 'event_msg', payload: { type: 'task_started', turn_id: `t${turn}` } }));
    records.push(line({ timestamp: at(), type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: prompt }] } }));
    records.push(line({ timestamp: at(), type: 'event_msg', payload: { type: 'user_message', message: prompt } }));
    records.push(line({ timestamp: at(), type: 'response_item', payload: { type: 'reasoning', summary: [{ type: 'summary_text', text: prose(next, 200) }], encrypted_content: 'x'.repeat(300) } }));
    records.push(line({ timestamp: at(), type: 'response_item', payload: { type: 'function_call', name: 'shell', arguments: JSON.stringify({ command: ['bash', '-lc', 'cargo test'] }), call_id: `call_${n}_${turn}` } }));
    records.push(line({ timestamp: at(), type: 'response_item', payload: { type: 'function_call_output', call_id: `call_${n}_${turn}`, output: prose(next, 900) } }));
    const reply = prose(next, 500);
    records.push(line({ timestamp: at(), type: 'response_item', payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: reply }] } }));
    records.push(line({ timestamp: at(), type: 'event_msg', payload: { type: 'agent_message', message: reply } }));
    records.push(line({ timestamp: at(), type: 'event_msg', payload: { type: 'task_complete', turn_id: `t${turn}` } }));
  }
  return { thread, text: records.join('') };
}

/** A Gemini CLI JSONL chat: metadata, prompts, replies with thoughts and tool calls; about 5-8 KB. */
function geminiChat(n, next) {
  const id = uuidOf(n, 3);
  const start = new Date(EPOCH + n * 60_000).toISOString();
  const records = [line({ sessionId: id, projectHash: 'f'.repeat(64), startTime: start, lastUpdated: start, kind: 'main', summary: prose(next, 30) })];
  for (let turn = 0; turn < 3; turn += 1) {
    records.push(line({ id: `${id}-u${turn}`, type: 'user', timestamp: start, content: [{ text: prose(next, 160) }] }));
    records.push(
      line({
        id: `${id}-g${turn}`,
        type: 'gemini',
        timestamp: start,
        content: prose(next, 500),
        thoughts: [{ subject: 'plan', description: prose(next, 300), timestamp: start }],
        toolCalls: [{ id: `c${turn}`, name: 'run_shell_command', args: { command: 'make' }, result: [{ functionResponse: { id: `c${turn}`, name: 'run_shell_command', response: { output: prose(next, 900) } } }], status: 'success', timestamp: start }],
        model: 'gemini-2.5-pro',
      }),
    );
  }
  return { id, start, text: records.join('') };
}

/** The corpus under `home`, written once (a marker file says it is complete). */
function writeCorpus(home, count) {
  const done = join(home, '.complete');
  if (existsSync(done)) return { ...JSON.parse(readFileSync(done, 'utf8')), reused: true };
  rmSync(home, { recursive: true, force: true });
  const next = random(20261203);
  const claude = Math.round(count * 0.5);
  const codex = Math.round(count * 0.4);
  const gemini = count - claude - codex;
  let bytes = 0;
  const write = (path, text) => {
    writeFileSync(path, text);
    bytes += Buffer.byteLength(text);
  };
  for (let n = 0; n < claude; n += 1) {
    const dir = join(home, '.claude', 'projects', `-work-project-${n % 50}`);
    if (n < 50) mkdirSync(dir, { recursive: true });
    const { session, text } = claudeTranscript(n, next);
    write(join(dir, `${session}.jsonl`), text);
  }
  for (let n = 0; n < codex; n += 1) {
    const day = new Date(EPOCH - (n % 120) * 86_400_000);
    const stamp = `${day.getUTCFullYear()}-${pad(day.getUTCMonth() + 1, 2)}-${pad(day.getUTCDate(), 2)}T10-00-00`;
    const archived = n % 4 === 3;
    const dir = archived ? join(home, '.codex', 'archived_sessions') : join(home, '.codex', 'sessions', String(day.getUTCFullYear()), pad(day.getUTCMonth() + 1, 2), pad(day.getUTCDate(), 2));
    mkdirSync(dir, { recursive: true });
    const { thread, text } = codexRollout(n, next);
    if (archived) {
      const compressed = zstdCompressSync(Buffer.from(text));
      writeFileSync(join(dir, `rollout-${stamp}-${thread}.jsonl.zst`), compressed);
      bytes += compressed.length;
    } else {
      write(join(dir, `rollout-${stamp}-${thread}.jsonl`), text);
    }
  }
  for (let n = 0; n < gemini; n += 1) {
    const dir = join(home, '.gemini', 'tmp', `app-${n % 10}`, 'chats');
    if (n < 10) {
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(home, '.gemini', 'tmp', `app-${n % 10}`, '.project_root'), `/work/app-${n % 10}`);
    }
    const { id, start, text } = geminiChat(n, next);
    write(join(dir, `session-${start.slice(0, 16).replace(':', '-')}-${id.slice(0, 8)}.jsonl`), text);
  }
  const corpus = { total: count, claude, codex, gemini, bytes };
  writeFileSync(done, JSON.stringify(corpus));
  return { ...corpus, reused: false };
}

/** What `sessref list` asks of the sources: every header, then every title. */
async function list(sources) {
  let sessions = 0;
  for (const { source } of sources) {
    const headers = await source.listSessions();
    const titles = await source.readTitles(headers.map((header) => header.id));
    sessions += titles.filter((title) => title.status === 'fulfilled').length;
  }
  return sessions;
}

const environment = (home, cache) => ({ home, env: { SESSREF_CACHE_DIR: cache } });

/** One timed call: wall and main-thread CPU ms. */
async function time(fn) {
  const cpu = threadCpuMs();
  const start = performance.now();
  const result = await fn();
  return { ms: performance.now() - start, cpuMs: threadCpuMs() - cpu, result };
}

/** A cache directory no listing can use: its parent is a regular file. */
function unusableCache(cache) {
  mkdirSync(cache, { recursive: true });
  writeFileSync(join(cache, 'not-a-directory'), '');
  return join(cache, 'not-a-directory', 'sessref');
}

function summary(samples) {
  return { medianMs: median(samples.map((sample) => sample.ms)), medianCpuMs: median(samples.map((sample) => sample.cpuMs)), samplesMs: samples.map((sample) => sample.ms), sessions: samples[0]?.result };
}

async function inProcess(home, cache, runs) {
  const baselineRuns = Math.max(3, Math.ceil(runs / 5));
  const noCache = unusableCache(join(cache, 'unusable'));
  const warmCache = join(cache, 'warm');
  /** One listing by fresh sources (what a new process has), timed; their watches closed after. */
  const fresh = async (cacheDir) => {
    const sources = localSources(environment(home, cacheDir), AGENTS);
    const sample = await time(() => list(sources));
    for (const { source } of sources) source.close();
    return sample;
  };
  const baseline = [];
  for (let run = 0; run < baselineRuns; run += 1) baseline.push(await fresh(noCache));
  rmSync(warmCache, { recursive: true, force: true });
  const cold = await fresh(warmCache);
  const warm = [];
  for (let run = 0; run < runs; run += 1) warm.push(await fresh(warmCache));
  // A long-lived process: the same sources listing again, their folders watched since the first listings.
  const kept = localSources(environment(home, warmCache), AGENTS);
  for (let settle = 0; settle < 2; settle += 1) await list(kept);
  const memory = [];
  for (let run = 0; run < runs; run += 1) memory.push(await time(() => list(kept)));
  // The same while agents write: before each listing one more transcript grows by a turn (a Claude Code title record).
  const files = readdirSync(home, { recursive: true, encoding: 'utf8' }).map((name) => join(home, name)).filter((path) => /\.jsonl(\.zst)?$/.test(path));
  const claude = files.filter((path) => path.includes('/.claude/projects/'));
  const growing = [];
  for (let run = 0; run < runs; run += 1) {
    const grown = claude[run % claude.length];
    const size = statSync(grown).size;
    appendFileSync(grown, `${JSON.stringify({ type: 'ai-title', aiTitle: `Grown ${run}`, sessionId: 'bench' })}\n`);
    growing.push(await time(() => list(kept)));
    // The corpus is kept for later runs: as it was, bar the times.
    truncateSync(grown, size);
  }
  for (const { source } of kept) source.close();
  // The floor of any listing that must notice appended transcripts without watching: one stat of every file, nothing else.
  const stats = [];
  for (let run = 0; run < runs; run += 1) stats.push(await time(() => files.filter((path) => statSync(path, { bigint: true }).isFile()).length));
  return { baseline: summary(baseline), cold: summary([cold]), warm: summary(warm), memory: summary(memory), growing: summary(growing), stats: summary(stats) };
}

/** Wall ms of one child process. */
function processMs(args, env) {
  const start = performance.now();
  const child = spawnSync(process.execPath, args, { env: { ...process.env, NO_COLOR: '1', ...env }, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  const ms = performance.now() - start;
  if (child.status !== 0) throw new Error(`${args.join(' ')} exited with ${child.status}: ${child.stderr}`);
  return { ms, stdout: child.stdout };
}

function wholeProcess(home, cache, root, runs) {
  const args = ['list', '--json', '--root', root];
  const foreign = [CLI, ...args, '--sources', AGENTS.join(',')];
  const env = (cacheDir) => ({ HOME: home, SESSREF_CACHE_DIR: cacheDir, XDG_CACHE_HOME: '', SESSREF_ROOT: '' });
  const noCache = unusableCache(join(cache, 'process-unusable'));
  const warmCache = join(cache, 'process-warm');
  rmSync(warmCache, { recursive: true, force: true });
  const cold = processMs(foreign, env(warmCache));
  const rows = JSON.parse(cold.stdout).length;
  const measure = (fn, n) => {
    const samples = [];
    for (let run = 0; run < n; run += 1) samples.push(fn());
    return { medianMs: median(samples), samplesMs: samples };
  };
  return {
    rows,
    coldMs: cold.ms,
    warm: measure(() => processMs(foreign, env(warmCache)).ms, runs),
    baseline: measure(() => processMs(foreign, env(noCache)).ms, Math.max(3, Math.ceil(runs / 5))),
    dshOnly: measure(() => processMs([CLI, ...args, '--sources', 'dsh'], env(warmCache)).ms, runs),
    node: measure(() => processMs(['-e', ''], {}).ms, runs),
  };
}

const { mode, home } = options;
if (mode === 'corpus') {
  progress(`foreign corpus: ${options.count} sessions under ${home}`);
  emitResult(writeCorpus(home, Number(options.count)));
} else if (mode === 'in-process') {
  progress(`listing ${home} in one process: baseline, cold, warm (fresh sources) and in memory, ${options.runs} runs`);
  emitResult(await inProcess(home, options.cache, Number(options.runs)));
} else if (mode === 'process') {
  progress(`whole sessref list processes over ${home}, ${options.runs} runs`);
  mkdirSync(options.root, { recursive: true });
  emitResult(wholeProcess(home, options.cache, options.root, Number(options.runs)));
} else {
  throw new Error(`--mode must be corpus, in-process or process, got ${mode}`);
}
