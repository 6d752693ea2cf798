/**
 * A real OpenSSH server for the remote suite: Debian's `sshd` started by the
 * test as the current user, on 127.0.0.1 and a free port only, with its own
 * config, a throwaway host key and a throwaway user key, no password or PAM
 * login. Every session it accepts starts in `home`, the "remote" home the
 * test lays out, whatever the user's own home is: that is where the
 * relative paths sessref asks rsync for are read.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { userInfo } from 'node:os';
import { join } from 'node:path';

const SSHD = '/usr/sbin/sshd';

/** How long the server may take to listen, and one key to be made. */
const START_TIMEOUT_MS = 15_000;

export interface RunningSshd {
  /** `user@127.0.0.1`, for `remote add`. */
  readonly destination: string;
  /** The `--ssh-option`s that reach this server and trust its key alone. */
  readonly sshOptions: readonly string[];
  /** Stop the server; later connections are refused. */
  stop(): Promise<void>;
}

/** Start sshd over `home`, keeping its keys, config and log in `scratch`. */
export async function startSshd(home: string, scratch: string): Promise<RunningSshd> {
  if (!existsSync(SSHD)) throw new Error(`${SSHD} is missing: install Debian's openssh-server (\`.ci/run\` does)`);
  // Run as root, sshd wants the privilege separation folder Debian's service creates when it starts.
  if (process.getuid?.() === 0 && !existsSync('/run/sshd')) throw new Error('/run/sshd is missing: sshd started as root needs it (`.ci/run` creates it)');
  for (const key of ['host_key', 'user_key']) makeKey(join(scratch, key));
  writeFileSync(join(scratch, 'authorized_keys'), readFileSync(join(scratch, 'user_key.pub')));
  const port = await freePort();
  const config = join(scratch, 'sshd_config');
  writeFileSync(
    config,
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${join(scratch, 'host_key')}`,
      `PidFile ${join(scratch, 'sshd.pid')}`,
      `AuthorizedKeysFile ${join(scratch, 'authorized_keys')}`,
      `AllowUsers ${userInfo().username}`,
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'UsePAM no',
      // The keys live in a temporary folder, whose owner and modes sshd's checks were not made for.
      'StrictModes no',
      'PermitRootLogin prohibit-password',
      'AllowAgentForwarding no',
      'AllowTcpForwarding no',
      'X11Forwarding no',
      `ForceCommand cd ${home} && exec /bin/sh -c "$SSH_ORIGINAL_COMMAND"`,
      '',
    ].join('\n'),
  );
  const server = spawn(SSHD, ['-D', '-e', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  server.stderr.setEncoding('utf8').on('data', (chunk: string) => (log += chunk));
  await listening(port, server, () => log);
  const hostKey = readFileSync(join(scratch, 'host_key.pub'), 'utf8').split(' ').slice(0, 2).join(' ');
  writeFileSync(join(scratch, 'known_hosts'), `[127.0.0.1]:${port} ${hostKey}\n`);
  return {
    destination: `${userInfo().username}@127.0.0.1`,
    sshOptions: [
      `Port=${port}`,
      `IdentityFile=${join(scratch, 'user_key')}`,
      'IdentitiesOnly=yes',
      `UserKnownHostsFile=${join(scratch, 'known_hosts')}`,
      'GlobalKnownHostsFile=/dev/null',
      'StrictHostKeyChecking=yes',
    ],
    stop: () => stopped(server),
  };
}

function makeKey(path: string): void {
  const made = spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'sessref-test', '-f', path], { stdio: 'pipe', timeout: START_TIMEOUT_MS });
  if (made.status !== 0) throw new Error(`ssh-keygen failed: ${made.stderr?.toString() ?? made.error?.message}`);
}

/** A port nothing listens on now, on 127.0.0.1. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** Wait until `port` accepts a connection, failing with sshd's log if it exits or takes too long. */
async function listening(port: number, server: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (server.exitCode !== null) throw new Error(`sshd exited (${server.exitCode}): ${log()}`);
    if (await accepts(port)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  server.kill('SIGKILL');
  throw new Error(`sshd did not listen on 127.0.0.1:${port} within ${START_TIMEOUT_MS} ms: ${log()}`);
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

function stopped(server: ChildProcess): Promise<void> {
  if (server.exitCode !== null || server.signalCode !== null) return Promise.resolve();
  const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()));
  server.kill('SIGTERM');
  return exited;
}
