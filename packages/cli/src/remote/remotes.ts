/**
 * The remotes `sessref remote` knows: `remotes.json` in sessref's remotes
 * folder (`sessrefRemotesDirectory`, beside each remote's mirror), one entry
 * per remote with how to reach it and how its last sync went. Read whole,
 * replaced whole and atomically; the folder is this user's alone.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { directoryProblem, readRegularFile, replaceFileAtomically, sessrefRemotesDirectory } from '@sessref/platform';
import { isRemoteName } from '@sessref/sources';
import { CliError, usageError } from '../failure.js';
import { formatAge } from '../format.js';

/** A remote as `remote add` recorded it, with its last sync. */
export interface Remote {
  readonly name: string;
  /** What ssh connects to: `[user@]host`. */
  readonly destination: string;
  /** `-o` options for ssh, as given (`Port=2222`, `IdentityFile=~/.ssh/devbox`). */
  readonly sshOptions: readonly string[];
  /** When the last sync that completed ended (ms since the epoch); absent before the first. */
  readonly syncedAt?: number;
  /** The last sync that failed since then: when, and why. */
  readonly failure?: { readonly at: number; readonly code: string; readonly message: string };
}

/** Where the remotes file lives: its folder, and the environment that places it. */
export interface RemotesPlace {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly home: string;
}

/** The place as this process's environment gives it: where a long-lived process, which reads the agents' homes from it too, keeps its remotes. */
export function processPlace(): RemotesPlace {
  return { env: process.env, home: process.env['HOME'] || homedir() };
}

const FILE_VERSION = 1;

/** Far above any list of remotes a person keeps; a bound on a planted file. */
const MAX_FILE_BYTES = 1024 * 1024;

/** The remotes folder: the remotes file and one mirror folder per remote. */
export function remotesFolder(place: RemotesPlace): string {
  return sessrefRemotesDirectory(place.env, place.home);
}

function remotesFile(place: RemotesPlace): string {
  return join(remotesFolder(place), 'remotes.json');
}

/** Every remote, in the order they were added; none before the first `remote add`. */
export function readRemotes(place: RemotesPlace): Remote[] {
  const file = remotesFile(place);
  const folderProblem = directoryProblem(remotesFolder(place));
  if (folderProblem === 'does not exist') return [];
  if (folderProblem !== undefined) throw configInvalid(file, `its folder ${folderProblem}`);
  let bytes: Buffer | undefined;
  try {
    bytes = readRegularFile(file, MAX_FILE_BYTES);
  } catch (error) {
    throw configInvalid(file, error instanceof Error ? error.message : String(error));
  }
  if (bytes === undefined) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw configInvalid(file, 'it is not JSON');
  }
  const remotes = parsed !== null && typeof parsed === 'object' && Reflect.get(parsed, 'version') === FILE_VERSION ? Reflect.get(parsed, 'remotes') : undefined;
  if (!Array.isArray(remotes) || !remotes.every(isRemote)) throw configInvalid(file, `it is not a version ${FILE_VERSION} list of remotes`);
  return remotes;
}

/** Replace the remotes file with `remotes`; a file that cannot be written is an error, as the change would be lost. */
export function writeRemotes(place: RemotesPlace, remotes: readonly Remote[]): void {
  const file = remotesFile(place);
  const text = `${JSON.stringify({ version: FILE_VERSION, remotes }, null, 2)}\n`;
  if (!replaceFileAtomically(file, Buffer.from(text))) {
    const problem = directoryProblem(remotesFolder(place));
    throw new CliError('REMOTE_CONFIG_UNWRITABLE', `${file} could not be written${problem === undefined ? '' : `: its folder ${problem}`}`, 'make the folder yours and closed to others, or set SESSREF_CACHE_DIR to one that is');
  }
}

/**
 * One line per remote whose last sync failed, for commands that list
 * sessions: its sessions come from a mirror as old as its last good sync.
 * A remotes file that cannot be read is said too; neither fails the command.
 */
export function staleMirrorNotes(place: RemotesPlace): string[] {
  let remotes: Remote[];
  try {
    remotes = readRemotes(place);
  } catch (error) {
    return [error instanceof Error ? error.message : String(error)];
  }
  return remotes.flatMap(({ name, syncedAt, failure }) =>
    failure === undefined
      ? []
      : [`the last sync of ${name} failed ${formatAge(failure.at)} (${failure.code}); its sessions are ${syncedAt === undefined ? 'not mirrored yet' : `read from its mirror of ${formatAge(syncedAt)}`}`],
  );
}

/** The remote called `name`, or `REMOTE_NOT_FOUND` naming those there are. */
export function remoteNamed(remotes: readonly Remote[], name: string): Remote {
  const found = remotes.find((remote) => remote.name === name);
  if (found !== undefined) return found;
  const known = remotes.map((remote) => remote.name);
  throw new CliError('REMOTE_NOT_FOUND', `no remote is called "${name}"`, known.length === 0 ? 'add one with sessref remote add NAME [USER@]HOST' : `the remotes are ${known.join(', ')}`);
}

/** `NAME`, checked: a remote's name is a folder name and the first part of its session ids. */
export function checkRemoteName(name: string): string {
  if (!isRemoteName(name)) throw usageError(`"${name}" cannot name a remote`, 'use lower-case letters, digits and inner hyphens, at most 32 characters, such as devbox');
  return name;
}

/**
 * `[user@]host`, checked: ssh reads a word starting with `-` as an option,
 * and rsync reads a `:` as the end of the host, so neither is taken; nor is
 * whitespace or a control character. A port goes in `--ssh-option Port=N`.
 */
export function checkDestination(destination: string): string {
  if (!isDestination(destination)) {
    throw usageError(`"${destination}" is not an ssh destination sessref takes`, 'give [USER@]HOST; a port goes in --ssh-option Port=N');
  }
  return destination;
}

/**
 * `--ssh-option OPT`, checked: one `Key=Value` (or `Key Value`) of
 * ssh_config, passed to ssh as `-o OPT`. No quote, backslash or control
 * character, so rsync's one-string ssh command keeps it one word.
 */
export function checkSshOption(option: string): string {
  if (!isSshOption(option)) {
    throw usageError(`--ssh-option "${option}" is not one ssh_config option`, 'give Key=Value, e.g. --ssh-option Port=2222 --ssh-option IdentityFile=~/.ssh/devbox');
  }
  return option;
}

function isDestination(destination: string): boolean {
  return destination !== '' && !destination.startsWith('-') && !/[\s:'"\\\p{Cc}]/u.test(destination);
}

function isSshOption(option: string): boolean {
  return /^[A-Za-z][A-Za-z0-9]*[= ]\S/.test(option) && !/['"\\\p{Cc}]/u.test(option);
}

/** An entry of the file, as `remote add` would have written it: the file's folder is this user's alone, and still every value is checked before ssh sees it. */
function isRemote(value: unknown): value is Remote {
  if (value === null || typeof value !== 'object') return false;
  const { name, destination, sshOptions, syncedAt, failure } = value as Record<string, unknown>;
  return (
    typeof name === 'string' &&
    isRemoteName(name) &&
    typeof destination === 'string' &&
    isDestination(destination) &&
    Array.isArray(sshOptions) &&
    sshOptions.every((option) => typeof option === 'string' && isSshOption(option)) &&
    (syncedAt === undefined || typeof syncedAt === 'number') &&
    (failure === undefined || isFailure(failure))
  );
}

function isFailure(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return false;
  const { at, code, message } = value as Record<string, unknown>;
  return typeof at === 'number' && typeof code === 'string' && typeof message === 'string';
}

function configInvalid(file: string, why: string): CliError {
  return new CliError('REMOTE_CONFIG_INVALID', `the remotes file ${file} cannot be used: ${why}`, 'fix or delete it (sessref remote add records the remotes again)');
}
