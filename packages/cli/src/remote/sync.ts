/**
 * One remote's mirror, pulled with the system's rsync over the system's ssh:
 * existing, audited tools, no daemon and no port of sessref's own. rsync
 * only pulls: the remote side runs `rsync --server --sender`, which reads
 * the folders asked for and writes, deletes and locks nothing there.
 */
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { errorCode } from '@sessref/core';
import { CliError } from '../failure.js';
import type { Remote } from './remotes.js';

/** The bounds and the folders of one sync. */
export interface SyncPlan {
  /** What to pull, relative to the remote's home: each agent's session folders and files (a folder ends in `/`). */
  readonly paths: readonly string[];
  /** The folder the mirror is laid out in, as under the remote's home. */
  readonly mirror: string;
  /** A larger file is left out of the mirror. */
  readonly maxFileBytes: number;
  /** The remote's folders may hold this much in files of at most {@link maxFileBytes}; past it, nothing is pulled. */
  readonly maxTotalBytes: number;
  /** rsync's and ssh's environment (the user's ssh agent and config). */
  readonly env: NodeJS.ProcessEnv;
  /** Stops a sync under way (its rsync killed): a long-lived process that is closing. */
  readonly signal?: AbortSignal;
}

/** What a sync found and moved. */
export interface SyncReport {
  /** Files the mirror holds now, and their bytes. */
  readonly files: number;
  readonly bytes: number;
  /** Files this sync brought (new or changed). */
  readonly transferred: number;
}

/** One rsync run may stall this long without a byte moving before rsync gives up (`--timeout`). */
const IO_TIMEOUT_SECONDS = 60;

/** ssh gives up on a host that does not answer within this. */
const CONNECT_TIMEOUT_SECONDS = 15;

/** A whole rsync run is stopped past this, whatever it is doing. */
const RUN_TIMEOUT_MS = 30 * 60 * 1000;

/** rsync's and ssh's messages kept for an error: their last lines say why. */
const MAX_OUTPUT_BYTES = 256 * 1024;

/**
 * The ssh command rsync runs, one string as `-e` takes it. No agent or X11
 * forwarding, no port forwarding, no local command, no terminal, and never
 * a question (BatchMode: a host key or a password to confirm fails the sync
 * instead). These come first: ssh keeps the first value it reads for an
 * option, so none of them can be turned back on by the user's `-o` options
 * or config. StrictHostKeyChecking and everything else stays as the user's
 * config and options say. Each value is quoted for rsync's splitting; the
 * checks on `--ssh-option` leave no quote in one.
 */
function sshCommand(remote: Remote): string {
  const forced = ['BatchMode=yes', 'ForwardAgent=no', 'ForwardX11=no', 'ClearAllForwardings=yes', 'PermitLocalCommand=no', 'RequestTTY=no'];
  const options = [...forced, ...remote.sshOptions, `ConnectTimeout=${CONNECT_TIMEOUT_SECONDS}`];
  return ['ssh', ...options.flatMap((option) => ['-o', `'${option}'`])].join(' ');
}

/**
 * How every run reads the remote: its home (`host:./`, where ssh starts),
 * walked only where the filter lets it go ({@link filterRules}). Symbolic
 * links, devices and special files are never copied nor followed
 * (`--no-links`): a link may lead anywhere on the remote, so a mirror holds
 * only what is in the folders themselves (an agent's folder that is itself
 * a link is not mirrored).
 */
function readArguments(remote: Remote, plan: SyncPlan): string[] {
  return [
    '--recursive',
    '--no-links',
    '--no-devices',
    '--no-specials',
    ...filterRules(plan.paths),
    `--max-size=${plan.maxFileBytes}`,
    `--timeout=${IO_TIMEOUT_SECONDS}`,
    '--no-human-readable',
    '-e',
    sshCommand(remote),
    `${remote.destination}:./`,
  ];
}

/**
 * rsync's filter for `paths` (relative to the home; a folder ends in `/`):
 * each folder on the way in, then the path (a folder with everything in
 * it), then nothing else. The first rule that matches a name decides, so the
 * walk never enters a folder the paths do not lead through.
 */
function filterRules(paths: readonly string[]): string[] {
  const included = new Set<string>();
  for (const path of paths) {
    const parts = path.replace(/\/$/, '').split('/');
    for (let depth = 1; depth < parts.length; depth++) included.add(`/${parts.slice(0, depth).join('/')}/`);
    included.add(path.endsWith('/') ? `/${path}***` : `/${path}`);
  }
  return [...[...included].map((rule) => `--include=${rule}`), '--exclude=*'];
}

/**
 * Pull `remote`'s session folders into `plan.mirror`: first a listing, to
 * refuse a remote over the bound before anything moves, then the transfer,
 * which moves only files whose size or time changed and deletes from the
 * mirror what the remote no longer has (a whole agent's folder included).
 * The mirror's folders are this user's alone (0700). Refusals:
 * `REMOTE_TOO_LARGE`, `REMOTE_UNREACHABLE` (ssh could not connect or log
 * in: the mirror is left as it was), `REMOTE_TOOL_MISSING`,
 * `REMOTE_SYNC_FAILED`.
 */
export async function syncMirror(remote: Remote, plan: SyncPlan): Promise<SyncReport> {
  let files = 0;
  let bytes = 0;
  await runRsync(remote, [...readArguments(remote, plan), '--list-only'], plan, (line) => {
    const size = listedFileSize(line);
    if (size === undefined || size > plan.maxFileBytes) return;
    files += 1;
    bytes += size;
  });
  if (bytes > plan.maxTotalBytes) {
    throw new CliError(
      'REMOTE_TOO_LARGE',
      `${remote.name}'s session folders hold ${bytes} bytes in ${files} files, over the mirror's bound of ${plan.maxTotalBytes} bytes: nothing was pulled`,
      'raise SESSREF_REMOTE_MAX_BYTES if that much is meant to be mirrored',
    );
  }
  makePrivateFolder(plan.mirror);
  let transferred = 0;
  // What the remote no longer has leaves the mirror, and so does anything the filter no longer names (an agent's row that changed).
  const args = [...readArguments(remote, plan), '--times', '--delete', '--delete-excluded', '--chmod=go=', '--stats', `${plan.mirror}/`];
  await runRsync(remote, args, plan, (line) => {
    const match = /^Number of regular files transferred: (\d+)/.exec(line);
    if (match !== null) transferred = Number(match[1]);
  });
  return { files, bytes, transferred };
}

/** `folder` and the remote's folder around it, created this user's alone, or made so. */
function makePrivateFolder(folder: string): void {
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  chmodSync(dirname(folder), 0o700);
  chmodSync(folder, 0o700);
}

/** The size of a regular file in a `--list-only` line (`-rw-r--r-- 1234 2026/12/06 18:16:00 name`); `undefined` for any other line. */
function listedFileSize(line: string): number | undefined {
  const match = /^-\S+\s+(\d+)\s/.exec(line);
  return match === null ? undefined : Number(match[1]);
}

/**
 * rsync's exit codes that mean the mirror is whole as of this run: 0, and
 * 24, some files vanished while it ran (an agent deleting a transcript):
 * the next sync sees the rest.
 */
const COMPLETE = new Set([0, 24]);

/** rsync's code for a connection that failed or closed: ssh could not connect or log in (ssh's own 255 passed on), or the remote has no rsync. */
const CONNECTION_FAILED = new Set([12, 255]);

/**
 * Run rsync with `args`, stdin closed, within {@link RUN_TIMEOUT_MS} and until `signal` aborts, handing
 * each line it prints to `onLine` (a listing of any length is never held
 * whole); resolves when it completes, else rejects with the refusal its exit
 * code and last words give.
 */
function runRsync(remote: Remote, args: readonly string[], { env, signal }: Pick<SyncPlan, 'env' | 'signal'>, onLine: (line: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('rsync', args, { env, stdio: ['ignore', 'pipe', 'pipe'], ...(signal === undefined ? {} : { signal, killSignal: 'SIGKILL' as const }) });
    let partial = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      const lines = (partial + chunk).split('\n');
      partial = keepLast(lines.pop() ?? '');
      for (const line of lines) onLine(line);
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr = keepLast(stderr + chunk)));
    const timer = setTimeout(() => child.kill('SIGKILL'), RUN_TIMEOUT_MS);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(
        errorCode(error) === 'ENOENT'
          ? new CliError('REMOTE_TOOL_MISSING', 'rsync is not installed on this machine', 'install rsync and openssh-client (Debian: apt-get install rsync openssh-client)', { cause: error })
          : error,
      );
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      if (partial !== '') onLine(partial);
      if (code !== null && COMPLETE.has(code)) return resolve();
      reject(rsyncFailure(remote, code, signal, stderr));
    });
  });
}

function rsyncFailure(remote: Remote, code: number | null, signal: NodeJS.Signals | null, stderr: string): CliError {
  const said = lastWords(stderr);
  if (code !== null && CONNECTION_FAILED.has(code)) {
    return new CliError(
      'REMOTE_UNREACHABLE',
      `${remote.name} (${remote.destination}) could not be reached over ssh${said === '' ? '' : `: ${said}`}`,
      `check that \`ssh ${remote.destination}\` logs in without a question (a key, a known host key) and that the host has rsync; its last mirror is still read`,
    );
  }
  const how = signal === null ? `rsync exited with ${code}` : `rsync was stopped (${signal}) after ${RUN_TIMEOUT_MS / 60_000} minutes`;
  return new CliError('REMOTE_SYNC_FAILED', `syncing ${remote.name} failed: ${how}${said === '' ? '' : `: ${said}`}`, 'run sessref remote sync again; its last mirror is still read');
}

/** The last non-empty lines of rsync's and ssh's messages, on one line, without rsync's own trailer naming its source file. */
function lastWords(stderr: string): string {
  const lines = stderr
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('rsync error:') && !line.startsWith('rsync: connection unexpectedly closed'));
  return lines.slice(-2).join('; ');
}

function keepLast(text: string): string {
  return text.length > MAX_OUTPUT_BYTES ? text.slice(-MAX_OUTPUT_BYTES) : text;
}
