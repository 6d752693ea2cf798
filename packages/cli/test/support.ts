/**
 * Helpers for running the built `sessref` binary against temporary roots.
 *
 * The binary is `packages/cli/bundle/bin.js` as `npm test` and `npm run build`
 * bundle it (scripts/bundle-cli.mjs), the code the `sessref` command runs, run
 * with the Node that runs the tests (`process.execPath`, Node 22 under
 * vitest), without a terminal and with NO_COLOR set.
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { Writable, type Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { SessionId } from '@deepseek-ai/dsh-session';
import type { Context } from '@deepseek-ai/cordis';
import { bootHost } from '@sessref/host';
import { createHost } from '@sessref/test-support';
import { main } from '../src/cli.js';
import { Engine, engineHostOptions, type EngineOptions } from '../src/engine/engine.js';

export const BIN = fileURLToPath(new URL('../bundle/bin.js', import.meta.url));

/** Fail early, and say how to fix it, when the binary has not been built. */
export function requireBuild(): void {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run \`npm run build\` from the repository root first`);
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  /** Extra environment; `undefined` removes a variable. */
  env?: Record<string, string | undefined>;
  cwd?: string;
  /** Kills the command (SIGKILL, which no handler can delay) when it aborts: a test that gives up stops what it started. */
  signal?: AbortSignal;
  /** Written to the command's stdin, which is then closed; without it stdin is /dev/null. */
  input?: string | Buffer;
}

/**
 * Run `sessref ...argv` in this process, as the binary's entry runs it,
 * without a terminal and with NO_COLOR set: for code the bundle may not
 * hold yet. Derived files go where this process's environment says
 * (`SESSREF_CACHE_DIR`), so a suite that uses it sets that first.
 */
export async function inProcess(argv: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const output = { stdout: '', stderr: '' };
  const sink = (stream: keyof typeof output) =>
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        output[stream] += chunk.toString();
        done();
      },
    });
  const code = await main([...argv], { stdout: sink('stdout'), stderr: sink('stderr'), env: { NO_COLOR: '1' } });
  // Writes to a Writable land on the next tick.
  await new Promise((resolve) => setImmediate(resolve));
  return { code, ...output };
}

/** Caches the binary keeps outside the root stay out of the user's home. */
const CACHE_DIR = join(tmpdir(), `sessref-cli-test-cache-${process.pid}`);
/** A dsh home that is never created. */
export const NO_DSH_HOME = join(tmpdir(), `sessref-cli-test-no-dsh-home-${process.pid}`);
/** A home folder that is never created: no other agent's sessions are read unless a test names a home. */
const NO_AGENT_HOME = join(tmpdir(), `sessref-cli-test-no-home-${process.pid}`);

/** Run `sessref ...args` to completion and capture its output and exit code. */
export async function sessref(args: readonly string[], options: RunOptions = {}): Promise<RunResult> {
  const { code, stdout, stderr } = await finished(start(args, options));
  return { code, stdout, stderr };
}

/**
 * `sessref serve --port 0 ...args` in a child process until `signal` aborts
 * (its stderr, the request log, is dropped); its port and API token once it listens.
 */
export async function serveInChild(args: readonly string[], options: RunOptions & { signal: AbortSignal }): Promise<{ port: number; token: string }> {
  const child = start(['serve', '--port', '0', ...args], options);
  child.on('error', () => {}); // the abort that kills it
  child.stderr.resume();
  const url = await new Promise<URL>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      if (out.includes('\n')) resolve(new URL(out.slice(0, out.indexOf('\n'))));
    });
    child.once('exit', (code) => reject(new Error(`serve exited (${code}) before it listened`)));
  });
  return { port: Number(url.port), token: url.searchParams.get('token') ?? '' };
}

/** Start `sessref ...args` in the tests' environment, stdout and stderr piped. */
function start(args: readonly string[], options: RunOptions): ChildProcessByStdio<Writable | null, Readable, Readable> {
  const env: Record<string, string | undefined> = {
    ...process.env,
    NO_COLOR: '1',
    SESSREF_ROOT: undefined,
    SESSREF_CACHE_DIR: CACHE_DIR,
    // Never the machine's own dsh sessions: a dsh home that does not exist, unless a test sets one.
    DSH_HOME: NO_DSH_HOME,
    // Nor any other agent's: a home that does not exist, and none of their own folder variables.
    HOME: NO_AGENT_HOME,
    CLAUDE_CONFIG_DIR: undefined,
    CODEX_HOME: undefined,
    GEMINI_CLI_HOME: undefined,
    XDG_DATA_HOME: undefined,
    ...options.env,
  };
  for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key];
  const kill = options.signal === undefined ? {} : { signal: options.signal, killSignal: 'SIGKILL' as const };
  if (options.input === undefined) return spawn(process.execPath, [BIN, ...args], { cwd: options.cwd, env, stdio: ['ignore', 'pipe', 'pipe'], ...kill });
  const child = spawn(process.execPath, [BIN, ...args], { cwd: options.cwd, env, stdio: ['pipe', 'pipe', 'pipe'], ...kill });
  // A command that stops reading early (a refused, oversized input) closes the pipe: that is its answer, not the test's failure.
  child.stdin.on('error', () => {});
  child.stdin.end(options.input);
  return child;
}

/** Wait for a child with piped stdout and stderr to close: its output, its exit code and the signal that ended it. */
export function finished(child: ChildProcessByStdio<Writable | null, Readable, Readable>): Promise<RunResult & { signal: NodeJS.Signals | null }> {
  return new Promise((resolve, reject) => {
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.on('error', reject);
    child.on('close', (code, signal) =>
      resolve({ code, signal, stdout: Buffer.concat(stdout).toString('utf8'), stderr: Buffer.concat(stderr).toString('utf8') }),
    );
  });
}

/** The line `list` and `serve` start stderr with: which root, and why (a JSON object under --json). */
export const ROOT_LINE = /^(?:root \/.* \((?:--root|\$SESSREF_ROOT|dsh's sessions, .+|the demo root: .+)\)(?:; .+ sessions in \/.+)?|\{"root":\{"path":.*\}(?:,"sources":\[.*\])?\})\n/;

/** stderr without its leading root line. */
export function withoutRootLine(stderr: string): string {
  return stderr.replace(ROOT_LINE, '');
}

/** Run and require success with nothing on stderr but the root line; returns stdout. */
export async function ok(args: readonly string[], options?: RunOptions): Promise<string> {
  const result = await sessref(args, options);
  expect({ ...result, stderr: withoutRootLine(result.stderr) }, `sessref ${args.join(' ')}`).toMatchObject({ code: 0, stderr: '' });
  return result.stdout;
}

/** Run with --json and parse stdout. */
export async function json<T = unknown>(args: readonly string[], options?: RunOptions): Promise<T> {
  return JSON.parse(await ok([...args, '--json'], options)) as T;
}

/**
 * Require a failure reported as the CLI reports every failure: exit code
 * `exit`, nothing on stdout, and exactly one stderr line
 * `error CODE: message (fix: hint)`, without a stack trace. Returns the message.
 */
export function expectFailure(result: RunResult, exit: number, code: string): string {
  expect(result.code, result.stderr).toBe(exit);
  expect(result.stdout).toBe('');
  const lines = withoutRootLine(result.stderr).split('\n');
  expect(lines, result.stderr).toHaveLength(2);
  expect(lines[1]).toBe('');
  const match = /^error ([A-Z_]+): (.+) \(fix: (.+)\)$/.exec(lines[0]!);
  expect(match, result.stderr).not.toBeNull();
  expect(match![1]).toBe(code);
  expect(result.stderr).not.toMatch(/\n\s+at /);
  return match![2]!;
}

const temps: string[] = [];

export async function tempDir(prefix = 'sessref-cli-'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  temps.push(dir);
  return dir;
}

export async function removeTemps(): Promise<void> {
  await Promise.all([...temps.splice(0), CACHE_DIR].map((dir) => rm(dir, { recursive: true, force: true })));
}

/**
 * A new, empty directory for a root: `sessref` creates no root a user names
 * (only the demo root, by `seed`), so a test makes one as a user would, with mkdir.
 */
export async function emptyRoot(prefix?: string): Promise<string> {
  const root = join(await tempDir(prefix), 'sessions');
  await mkdir(root);
  return root;
}

/** A private copy of a root, for a test that writes or damages it. */
export async function copyRoot(root: string): Promise<string> {
  const copy = join(await tempDir('sessref-copy-'), 'sessions');
  await cp(root, copy, { recursive: true });
  return copy;
}

/** SHA-256 of every file under `root`, by path relative to it. */
export async function hashTree(root: string): Promise<Record<string, string>> {
  const hashes: Record<string, string> = {};
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    hashes[relative(root, path)] = createHash('sha256').update(await readFile(path)).digest('hex');
  }
  return hashes;
}

/** Where the dsh JSONL backend keeps a session's log (ids here need no escaping). */
export function logPath(root: string, sessionId: string, cwd?: string): string {
  const project = cwd === undefined ? '_no-cwd' : `--${cwd.replace(/^\/+/, '').replace(/\//g, '-')}--`;
  return join(root, project, sessionId, 'session.jsonl.zstd');
}

/**
 * The logical JSONL lines of a session's log (the header, then one record per
 * line), decoded by the dsh JSONL backend itself: every zstd frame, exactly
 * as written. Reading writes nothing.
 */
export async function logLines(root: string, sessionId: string): Promise<Record<string, unknown>[]> {
  const host = await createHost({ root, invariants: false });
  try {
    const raw = await host.persistence!.readRaw(SessionId(sessionId));
    if (raw === undefined) throw new Error(`no log for session "${sessionId}" in ${root}`);
    return raw.content
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  } finally {
    await host.dispose();
  }
}

/** The JSON array between the prompt's `<referenced-sessions>` tags. */
export function referencedSessions(prompt: string): Record<string, unknown>[] {
  const match = /\n<referenced-sessions>\n(.*)\n<\/referenced-sessions>$/s.exec(prompt);
  if (match === null) throw new Error(`no <referenced-sessions> block in:\n${prompt}`);
  return JSON.parse(match[1]!) as Record<string, unknown>[];
}

const engineHosts = new WeakMap<Engine, Context>();

/** `Engine.open`, keeping the host it runs on for {@link hostOf}: suites write sessions through that same host. */
export async function openEngineOnHost(options: EngineOptions): Promise<Engine> {
  const host = await bootHost(engineHostOptions(options));
  const engine = await Engine.over(host, options);
  engineHosts.set(engine, host);
  return engine;
}

/** The host an engine from {@link openEngineOnHost} runs on. */
export function hostOf(engine: Engine): Context {
  const host = engineHosts.get(engine);
  if (host === undefined) throw new Error('hostOf: the engine was not opened by openEngineOnHost');
  return host;
}
