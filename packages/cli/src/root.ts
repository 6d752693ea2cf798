import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { dshHomeDisplay, resolveDshHome } from '@deepseek-ai/dsh-home-paths';
import { CliError } from './failure.js';
import { errorCode } from '@sessref/core';

/** The embedded demo root, relative to the current directory: what `sessref seed` and `npm start` write. */
const DEMO_ROOT = '.sessref/sessions';

/** Where the session root came from, in the order sessref looks. */
type RootSource = '--root' | 'SESSREF_ROOT' | 'dsh' | 'demo';

/** The session root in use, and why: every command that reads a root can say both. */
export interface SessionRoot {
  path: string;
  source: RootSource;
  /** A short phrase that says why this root, e.g. `dsh's sessions, ~/.dsh/sessions`. */
  reason: string;
}

export interface RootOptions {
  cwd?: string;
  /**
   * Consider dsh's own sessions. Off for `seed` and `serve --seed-if-empty`
   * (what `npm start` runs), which write demo sessions: those never go into
   * dsh's root unless the user names it.
   */
  dsh?: boolean;
}

/**
 * The session root, in this order: `--root DIR`; `$SESSREF_ROOT`; dsh's
 * sessions, `<dsh home>/sessions` (dsh's home is `$DSH_HOME`, else `~/.dsh`,
 * as `@deepseek-ai/dsh-home-paths` resolves it for dsh itself) when that
 * exists; else the demo root `./.sessref/sessions`. A blank variable counts
 * as unset, as dsh treats a blank `$DSH_HOME`.
 */
export function resolveRoot(flag: string | undefined, env: NodeJS.ProcessEnv, options: RootOptions = {}): SessionRoot {
  const cwd = options.cwd ?? process.cwd();
  if (flag !== undefined) {
    if (flag.trim() === '') throw new CliError('USAGE', '--root needs a directory, got an empty value', 'pass --root DIR');
    return { path: resolve(cwd, flag), source: '--root', reason: '--root' };
  }
  const variable = env.SESSREF_ROOT;
  if (variable !== undefined && variable.trim() !== '') return { path: resolve(cwd, variable), source: 'SESSREF_ROOT', reason: '$SESSREF_ROOT' };
  const home = resolveDshHome(undefined, env);
  const dsh = join(home, 'sessions');
  const display = `${dshHomeDisplay(home)}/sessions`;
  const demo = resolve(cwd, DEMO_ROOT);
  if (options.dsh === false) return { path: demo, source: 'demo', reason: 'the demo root: no --root or $SESSREF_ROOT' };
  if (exists(dsh)) return { path: dsh, source: 'dsh', reason: `dsh's sessions, ${display}` };
  const where = display.startsWith('~') ? display : `${display} = ${dsh}`;
  return { path: demo, source: 'demo', reason: `the demo root: no --root, no $SESSREF_ROOT, no dsh sessions at ${where}` };
}

/** The line `list`, `serve` and `--help` print: which root, and why. */
export function describeRoot(root: SessionRoot): string {
  return `root ${root.path} (${root.reason})`;
}

/** `--root`, `SESSREF_ROOT` or a JSON key, as a failure message names where the root came from. */
function origin(root: SessionRoot): string {
  return `${root.path} (${root.reason})`;
}

export type RootState = 'missing' | 'empty' | 'sessions';

/**
 * What is at the root: nothing yet, an empty directory, or entries. A file,
 * a path through a file, or a directory that cannot be read is a one-line
 * error naming the root and where it came from.
 */
export function checkRoot(root: SessionRoot): RootState {
  let isDirectory: boolean;
  try {
    isDirectory = statSync(root.path).isDirectory();
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT') return 'missing';
    if (code === 'ENOTDIR') throw notADirectory(root, 'a part of that path is a file');
    throw unreadable(root, error);
  }
  if (!isDirectory) throw notADirectory(root, 'it is a file');
  try {
    return readdirSync(root.path).length === 0 ? 'empty' : 'sessions';
  } catch (error) {
    throw unreadable(root, error);
  }
}

/** A root with no sessions in it (missing or empty); the error for a root that is no directory is thrown. */
export function isEmptyRoot(root: SessionRoot | string): boolean {
  const resolved = typeof root === 'string' ? { path: root, source: '--root' as const, reason: '--root' } : root;
  return checkRoot(resolved) !== 'sessions';
}

/** `NO_ROOT`, saying whether the root is missing or empty and how it was chosen. */
export function noSessions(root: SessionRoot, state: RootState): CliError {
  const what = state === 'missing' ? 'it does not exist' : 'it is empty';
  return new CliError('NO_ROOT', `no sessions at ${origin(root)}: ${what}`, 'pass --root DIR, set SESSREF_ROOT, or run `sessref seed`');
}

function notADirectory(root: SessionRoot, why: string): CliError {
  return new CliError(
    'ROOT_NOT_A_DIRECTORY',
    `the session root ${origin(root)} is not a directory: ${why}`,
    "pass the directory that holds the session logs, such as dsh's ~/.dsh/sessions",
  );
}

function unreadable(root: SessionRoot, error: unknown): CliError {
  const code = errorCode(error);
  const why = code === 'EACCES' || code === 'EPERM' ? 'permission denied' : (code ?? (error instanceof Error ? error.message : String(error)));
  return new CliError('ROOT_UNREADABLE', `the session root ${origin(root)} cannot be read: ${why}`, 'give your user read access to it, or pass another --root', {
    cause: error,
  });
}

/** Whether anything is at `path` (an unreadable parent counts: the root check then says so). */
function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch (error) {
    const code = errorCode(error);
    return code !== 'ENOENT' && code !== 'ENOTDIR';
  }
}
