/**
 * Child processes of the dsh-app test: every child is spawned in its own
 * process group and remembered, so one call ends all of them (and their own
 * children, such as the workers `dsh web` starts), on success, on failure and
 * on a signal.
 */
import { spawn } from 'node:child_process';
import { clearTimeout, setTimeout } from 'node:timers';
import { setTimeout as sleep } from 'node:timers/promises';

const live = new Set();
const TAIL_BYTES = 64 * 1024;

/** Keep the last `TAIL_BYTES` of a stream's text. */
function tailCollector() {
  let text = '';
  return {
    push(chunk) {
      text += chunk.toString('utf8');
      if (text.length > TAIL_BYTES * 2) text = text.slice(-TAIL_BYTES);
    },
    get text() {
      return text.length > TAIL_BYTES ? text.slice(-TAIL_BYTES) : text;
    },
  };
}

/**
 * Spawn a long-lived child in its own process group.
 * @param {string} command
 * @param {string[]} args
 * @param {{ cwd?: string, env?: NodeJS.ProcessEnv, label: string, stdin?: 'ignore' | 'pipe' }} options
 *   `stdin: 'pipe'` for a child driven over its standard input (a JSON-lines RPC).
 */
export function spawnTracked(command, args, options) {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env,
    stdio: [options.stdin ?? 'ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const out = tailCollector();
  const err = tailCollector();
  child.stdout.on('data', (chunk) => out.push(chunk));
  child.stderr.on('data', (chunk) => err.push(chunk));
  const exited = new Promise((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
    child.once('error', (error) => resolve({ code: null, signal: null, error }));
  });
  const entry = { child, label: options.label, exited, done: false };
  live.add(entry);
  exited.then(() => {
    entry.done = true;
    live.delete(entry);
  });
  return {
    child,
    exited,
    label: options.label,
    get stdout() { return out.text; },
    get stderr() { return err.text; },
    stop: () => stopEntry(entry),
  };
}

function signalGroup(entry, signal) {
  if (entry.done || entry.child.pid === undefined) return;
  try {
    process.kill(-entry.child.pid, signal);
  } catch {
    try { entry.child.kill(signal); } catch { /* already gone */ }
  }
}

async function stopEntry(entry, graceMs = 4000) {
  if (entry.done) return;
  signalGroup(entry, 'SIGTERM');
  const timedOut = Symbol('timeout');
  const result = await Promise.race([entry.exited, sleep(graceMs, timedOut)]);
  if (result === timedOut) {
    signalGroup(entry, 'SIGKILL');
    await Promise.race([entry.exited, sleep(2000)]);
  }
  // The leader may be gone while its group lives on (a worker it forked).
  signalGroup(entry, 'SIGKILL');
}

/** End every child still running: SIGTERM to each group, then SIGKILL. */
export async function stopAll() {
  await Promise.all([...live].map((entry) => stopEntry(entry)));
}

/** Last resort on process exit: synchronous SIGKILL to every remembered group. */
export function killAllSync() {
  for (const entry of live) signalGroup(entry, 'SIGKILL');
}

/**
 * Run a command to completion with a time bound; the whole process group is
 * killed when the bound is hit.
 * @returns {Promise<{ code: number | null, signal: string | null, stdout: string, stderr: string, timedOut: boolean }>}
 */
export async function run(command, args, { cwd, env, timeoutMs, label = command } = {}) {
  const handle = spawnTracked(command, args, { cwd, env, label });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    void handle.stop();
  }, timeoutMs);
  const { code, signal, error } = await handle.exited;
  clearTimeout(timer);
  if (error !== undefined) throw new Error(`${label}: cannot start ${command}: ${error.message}`);
  return { code, signal, stdout: handle.stdout, stderr: handle.stderr, timedOut };
}

/** Tries of one `npm install`, and the pause before each try after the first. */
const NPM_TRIES = 3;
const NPM_RETRY_PAUSE_MS = [0, 10_000, 30_000];

/**
 * `npm <args>` run to completion like `run`, tried again (up to three tries in
 * all, within the same time bound) when it exits non-zero: a registry that
 * drops a connection or serves one bad tarball fails a long install now and
 * then, and one such failure should not fail a whole CI run. A timeout is not
 * tried again: the bound is spent. `log` hears each failed try's last lines.
 * @returns {Promise<{ code: number | null, signal: string | null, stdout: string, stderr: string, timedOut: boolean, tries: number }>}
 */
export async function npmWithRetries(args, { cwd, env, timeoutMs, label, log }) {
  const started = Date.now();
  for (let tries = 1; ; tries += 1) {
    await sleep(NPM_RETRY_PAUSE_MS[tries - 1]);
    const result = await run('npm', args, { cwd, env, timeoutMs: Math.max(60_000, timeoutMs - (Date.now() - started)), label });
    const boundSpent = Date.now() - started > timeoutMs - 60_000;
    if (result.timedOut || result.code === 0 || tries === NPM_TRIES || boundSpent) return { ...result, tries };
    log(`${label}: try ${tries} of ${NPM_TRIES} failed (exit ${result.code}): ${lastLines(`${result.stdout}\n${result.stderr}`)}; trying again`);
  }
}

/** The last `lines` non-empty lines of a text, for one-line failure reasons. */
export function lastLines(text, lines = 3) {
  return text.split('\n').map((line) => line.trim()).filter(Boolean).slice(-lines).join(' | ');
}
