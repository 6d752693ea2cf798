import { readdirSync, realpathSync, statSync, type Dirent } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { dshHomeDisplay, resolveDshHome } from '@deepseek-ai/dsh-home-paths';
import { CliError } from './failure.js';
import { errorCode } from '@sessref/core';
import { currentLogOf, listNames } from '@sessref/dsh/jsonl-root';
import { agentFolders } from '@sessref/sources';

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

/** dsh's own sessions directory, `<dsh home>/sessions`, whether it exists or not. */
function dshSessions(env: NodeJS.ProcessEnv): string {
  return join(resolveDshHome(undefined, env), 'sessions');
}

/** The line `list`, `serve` and `--help` print: which root, and why. */
export function describeRoot(root: SessionRoot): string {
  return `root ${root.path} (${root.reason})`;
}

/** The root's path and why it is the root, as messages name it. */
function origin(root: SessionRoot): string {
  return `${root.path} (${root.reason})`;
}

/**
 * What is at a root. One rule for every command and for `serve`: a missing
 * root is an error that names it ({@link missingRoot}), and an existing one
 * without a session log, empty or holding other files, has no sessions,
 * which is an answer ({@link noSessionsHint}), not an error. `empty` (not
 * even another file) is what seeding needs.
 */
export type RootState = 'missing' | 'empty' | 'no-sessions' | 'sessions';

/**
 * What is at the root. A file, a path through a file, or a directory that
 * cannot be read is a one-line error naming the root and where it came from.
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
  let projects: Dirent[];
  try {
    projects = readdirSync(root.path, { withFileTypes: true });
  } catch (error) {
    throw unreadable(root, error);
  }
  if (projects.length === 0) return 'empty';
  return projects.some((project) => project.isDirectory() && holdsLog(join(root.path, project.name))) ? 'sessions' : 'no-sessions';
}

/**
 * Whether a project directory holds a session log, as dsh lists one: a
 * session directory with a log of any generation in it (see
 * `@sessref/dsh/jsonl-root`). Anything at a log's name counts, since the
 * listing shows it as a damaged session; a project that cannot be read is
 * left to the listing, which says why.
 */
function holdsLog(project: string): boolean {
  let sessions: Dirent[];
  try {
    sessions = readdirSync(project, { withFileTypes: true });
  } catch {
    return false;
  }
  return sessions.some((session) => session.isDirectory() && currentLogOf(listNames(join(project, session.name))) !== undefined);
}

/**
 * Refuse a root inside another agent's own folder (`~/.claude`, `~/.codex`
 * or `$CODEX_HOME`, `~/.gemini`, `~/.local/share/opencode`, …) for a command
 * that writes dsh sessions there (`new`, `send`, `seed`, and the inspector's
 * new session and send, which name the served root by its path): those folders are
 * read in place and never written. Links are resolved on both sides, and a
 * root that does not exist yet is placed by its nearest existing parent.
 */
export function refuseAgentFolder(root: SessionRoot | string, env: NodeJS.ProcessEnv): void {
  const at = canonical(typeof root === 'string' ? root : root.path);
  for (const { displayName, folder } of agentFolders({ home: env.HOME || homedir(), env })) {
    if (!isInside(at, canonical(folder))) continue;
    throw new CliError(
      'ROOT_IN_AGENT_HOME',
      `the session root ${typeof root === 'string' ? root : origin(root)} is inside ${displayName}'s folder ${folder}: sessref never writes into another agent's folder`,
      `name a dsh session root instead (--root DIR or $SESSREF_ROOT), such as dsh's ~/.dsh/sessions; ${displayName}'s own sessions are read where they are`,
    );
  }
}

/** Whether `path` is `folder` or under it (both absolute and canonical). */
function isInside(path: string, folder: string): boolean {
  const rest = relative(folder, path);
  return rest === '' || (rest !== '..' && !rest.startsWith(`..${sep}`) && !isAbsolute(rest));
}

/** `path` with its links resolved, as far as it exists: the rest, not there yet, is joined to its nearest existing parent. */
function canonical(path: string): string {
  const missing: string[] = [];
  for (let at = resolve(path); ; at = dirname(at)) {
    try {
      return join(realpathSync.native(at), ...[...missing].reverse());
    } catch {
      // Not there (or not to be looked into): try its parent.
    }
    if (dirname(at) === at) return resolve(path);
    missing.push(basename(at));
  }
}

/** How to get a root that is missing, by where it came from; sessref creates none but the demo root. */
const MISSING_HINT: { readonly [S in RootSource]: string } = {
  '--root': 'check the path: sessref never creates a root you name; to start an empty one, create the directory first',
  SESSREF_ROOT: 'check $SESSREF_ROOT, or unset it: sessref never creates a root you name; to start an empty one, create the directory first',
  dsh: 'start a session in dsh, or pass --root DIR',
  demo: 'run `sessref seed` to create it with the demo sessions, or pass --root DIR or set SESSREF_ROOT',
};

/** `NO_ROOT`: the root does not exist. A mistyped path stays an error, never a new folder. */
export function missingRoot(root: SessionRoot): CliError {
  return new CliError('NO_ROOT', `the session root ${origin(root)} does not exist`, MISSING_HINT[root.source]);
}

/** What to do about a root that holds no sessions, fitting that root: only the demo root is ever seeded. */
const NO_SESSIONS_HINT: { readonly [S in RootSource]: string } = {
  '--root': '`sessref new` creates a session in it; or pass --root DIR to use another root',
  SESSREF_ROOT: '`sessref new` creates a session in it; or set SESSREF_ROOT to another root',
  dsh: 'start a session in dsh; or pass --root DIR or set SESSREF_ROOT to use another root',
  demo: '`sessref seed` writes the demo sessions into it; or pass --root DIR to use another root',
};

/** The one line that says a root holds no sessions, and what to do. */
export function noSessionsHint(root: SessionRoot, env: NodeJS.ProcessEnv): string {
  // dsh's folder named with --root (`npm start -- --root ~/.dsh/sessions`) is still dsh's: its hint is dsh's.
  const fits = root.path === dshSessions(env) ? 'dsh' : root.source;
  return `no sessions in ${origin(root)}: ${NO_SESSIONS_HINT[fits]}`;
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
