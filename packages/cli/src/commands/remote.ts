/**
 * `sessref remote add|list|sync|remove`: other machines whose agents'
 * sessions sessref mirrors over ssh and reads beside this machine's.
 */
import { rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { mirrorHome } from '@sessref/sources';
import { didYouMean } from '../did-you-mean.js';
import { describeFailure, formatError } from '../errors.js';
import { CliError, usageError } from '../failure.js';
import { formatAge, formatBytes, styleFor, table, terminalSafe, writeJson, writeLine, type Io } from '../output.js';
import { checkDestination, checkRemoteName, checkSshOption, readRemotes, remoteNamed, remotesFolder, writeRemotes, type Remote, type RemotesPlace } from '../remote/remotes.js';
import { syncPlan, syncRecorded, type SyncedRemote } from '../remote/syncing.js';

/** Each action, the words it takes after it as help spells them, and how many. */
const ACTIONS = {
  add: { words: 'NAME [USER@]HOST', least: 2, most: 2 },
  list: { words: 'no arguments', least: 0, most: 0 },
  sync: { words: '[NAME]', least: 0, most: 1 },
  remove: { words: 'NAME', least: 1, most: 1 },
} as const;

type Action = keyof typeof ACTIONS;

interface RemoteCall {
  readonly action: string;
  readonly name: string | undefined;
  readonly destination: string | undefined;
  readonly sshOptions: readonly string[];
  readonly json: boolean;
}

/** `sessref remote ACTION [NAME] [DEST] [--ssh-option OPT]... [--json]` */
export async function remoteCommand(io: Io, call: RemoteCall): Promise<void> {
  const place: RemotesPlace = { env: io.env, home: io.env.HOME || homedir() };
  const action = checkAction(call);
  if (action === 'list') return listRemotes(io, place, call.json);
  if (action === 'sync') return syncRemotes(io, place, call.name === undefined ? undefined : checkRemoteName(call.name), call.json);
  const name = checkRemoteName(call.name!);
  if (action === 'remove') return removeRemote(io, place, name, call.json);
  return addRemote(io, place, { name, destination: checkDestination(call.destination!), sshOptions: call.sshOptions.map(checkSshOption) }, call.json);
}

/** The action, with the words and flags it takes and no others. */
function checkAction(call: RemoteCall): Action {
  const action = call.action;
  if (!isAction(action)) throw usageError(`remote has no action "${action}"${didYouMean(action, Object.keys(ACTIONS), (known) => `"${known}"`)}`, 'the actions are add, list, sync and remove');
  const { words, least, most } = ACTIONS[action];
  const given = [call.name, call.destination].filter((word) => word !== undefined).length;
  if (given < least || given > most) throw usageError(`remote ${action} takes ${words}`, 'run `sessref remote --help` for usage');
  if (action !== 'add' && call.sshOptions.length > 0) throw usageError(`remote ${action} does not take --ssh-option`, 'ssh options are given to remote add');
  return action;
}

function isAction(word: string): word is Action {
  return Object.hasOwn(ACTIONS, word);
}

async function addRemote(io: Io, place: RemotesPlace, remote: Remote, json: boolean): Promise<void> {
  const remotes = readRemotes(place);
  if (remotes.some((known) => known.name === remote.name)) {
    throw new CliError('REMOTE_EXISTS', `a remote is already called "${remote.name}"`, `pick another name, or sessref remote remove ${remote.name} first`);
  }
  // The bound is read before anything is recorded: a mistyped one is a usage error, never the remote's failure.
  const plan = syncPlan(place, remote);
  writeRemotes(place, [...remotes, remote]);
  if (!json) writeLine(io.stderr, `added ${remote.name} (${terminalSafe(remote.destination)}); syncing it now`);
  const synced = await syncRecorded(place, remote, plan);
  if (synced instanceof CliError) throw synced;
  report(io, json, [synced]);
}

async function syncRemotes(io: Io, place: RemotesPlace, name: string | undefined, json: boolean): Promise<void> {
  const remotes = readRemotes(place);
  const chosen = name === undefined ? remotes : [remoteNamed(remotes, name)];
  if (chosen.length === 0 && !json) return writeLine(io.stderr, 'no remotes yet: add one with sessref remote add NAME [USER@]HOST');
  const plans = chosen.map((remote) => [remote, syncPlan(place, remote)] as const);
  const results: (SyncedRemote | CliError)[] = [];
  for (const [remote, plan] of plans) results.push(await syncRecorded(place, remote, plan));
  const failures = results.filter((result) => result instanceof CliError);
  // One remote that cannot be reached never keeps the others from syncing: each failure is said, and the run fails after all of them.
  if (failures.length > 1 || (failures.length === 1 && results.length > 1)) {
    for (const failure of failures) warn(io, json, failure);
  }
  report(
    io,
    json,
    results.filter((result): result is SyncedRemote => !(result instanceof CliError)),
  );
  if (failures.length === 1 && results.length === 1) throw failures[0]!;
  if (failures.length > 0) throw new CliError(failures[0]!.code, `${failures.length} of ${results.length} remotes did not sync`, 'the warnings above say why; their last mirrors are still read');
}

function report(io: Io, json: boolean, synced: readonly SyncedRemote[]): void {
  if (json) return writeJson(io.stdout, synced);
  for (const { name, files, bytes, transferred } of synced) {
    writeLine(io.stdout, `synced ${name}: ${files} file${files === 1 ? '' : 's'} (${formatBytes(bytes)}) in its mirror, ${transferred} brought by this sync`);
  }
}

function warn(io: Io, json: boolean, failure: CliError): void {
  const described = describeFailure(failure);
  if (json) writeLine(io.stderr, JSON.stringify({ warning: { code: described.code, message: described.message } }));
  else writeLine(io.stderr, formatError(described, styleFor(io.stderr, io.env), 'warning'));
}

function listRemotes(io: Io, place: RemotesPlace, json: boolean): void {
  const remotes = readRemotes(place);
  if (json) {
    return writeJson(
      io.stdout,
      remotes.map((remote) => ({ ...remote, syncedAt: remote.syncedAt ?? null, mirror: mirrorHome(place, remote.name) })),
    );
  }
  const style = styleFor(io.stdout, io.env);
  if (remotes.length === 0) return writeLine(io.stdout, style.dim('no remotes'));
  writeLine(
    io.stdout,
    table([
      ['NAME', 'DESTINATION', 'LAST SYNC', 'STATE'].map(style.bold),
      ...remotes.map((remote) => [remote.name, remote.destination, remote.syncedAt === undefined ? 'never' : formatAge(remote.syncedAt), stateOf(remote)]),
    ]),
  );
}

/** `ok`, or the failure of the last attempt since the last good sync: the mirror read is that old. */
function stateOf(remote: Remote): string {
  const failure = remote.failure;
  return failure === undefined ? 'ok' : `${failure.code} ${formatAge(failure.at)}: ${failure.message}`;
}

function removeRemote(io: Io, place: RemotesPlace, name: string, json: boolean): void {
  const remotes = readRemotes(place);
  // An unknown name is refused, naming the remotes there are.
  remoteNamed(remotes, name);
  writeRemotes(
    place,
    remotes.filter((remote) => remote.name !== name),
  );
  // The mirror is sessref's own copy in its cache directory; the remote machine is never touched.
  rmSync(join(remotesFolder(place), name), { recursive: true, force: true });
  if (json) return writeJson(io.stdout, { removed: name });
  writeLine(io.stdout, `removed ${name} and its mirror`);
}
