/**
 * No network but loopback. The harness re-runs itself inside a new network
 * namespace (and a private mount namespace) whose only interface is `lo`:
 * `unshare -n -m` as root, else `unshare -r -n -m` where unprivileged user
 * namespaces are allowed. Inside, `/etc/resolv.conf` is replaced (by a bind
 * mount visible only there) with `nameserver 127.0.0.1`, where a small DNS
 * logger answers every query NXDOMAIN and records its name, so an outside
 * lookup any CLI still tries is reported. Without either, the run goes on
 * with the env vars and flags alone and says so.
 */
import { Buffer } from 'node:buffer';
import dgram from 'node:dgram';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { run } from '../../dsh-app/lib/proc.mjs';

const CANDIDATES = [
  { mode: 'netns (root)', args: ['-n', '-m', '--propagation', 'private'], when: () => process.getuid?.() === 0 },
  { mode: 'netns (user namespace)', args: ['-r', '-n', '-m', '--propagation', 'private'], when: () => true },
];
const UP = 'ip link set lo up';

/** The first `unshare` form that works here, or why none does. */
export async function detectIsolation() {
  const reasons = [];
  for (const candidate of CANDIDATES) {
    if (!candidate.when()) continue;
    const probe = await run('unshare', [...candidate.args, 'sh', '-c', `${UP} && ip -o link show up`], { timeoutMs: 10_000, label: 'unshare probe' })
      .catch((error) => ({ code: -1, stdout: '', stderr: error.message }));
    const links = probe.stdout.split('\n').filter(Boolean);
    if (probe.code === 0 && links.length === 1 && /: lo:/.test(links[0])) return { mode: candidate.mode, args: candidate.args };
    reasons.push(`unshare ${candidate.args.join(' ')}: ${(probe.stderr || probe.stdout || `exit ${probe.code}`).trim().split('\n')[0]}`);
  }
  return { mode: 'none', reasons };
}

/** argv that runs `command…` inside the namespace with `lo` up. */
export const wrapped = (isolation, command) => ['unshare', [...isolation.args, 'sh', '-c', `${UP} && exec "$@"`, 'sh', ...command]];

/** A DNS reply for `query` with RCODE 3 (NXDOMAIN) and no answers. */
function nxdomain(query) {
  const reply = Buffer.from(query);
  reply[2] = 0x81 | (query[2] & 0x01); // QR, opcode 0, RD copied
  reply[3] = 0x83; // RA, NXDOMAIN
  reply.writeUInt16BE(0, 6);
  reply.writeUInt16BE(0, 8);
  reply.writeUInt16BE(0, 10);
  return reply;
}

function queryName(message) {
  const labels = [];
  let offset = 12;
  while (offset < message.length && labels.length < 64) {
    const length = message[offset];
    if (length === 0 || length > 63) break;
    labels.push(message.subarray(offset + 1, offset + 1 + length).toString('latin1'));
    offset += 1 + length;
  }
  return labels.join('.');
}

/**
 * Inside the namespace: point the resolver at 127.0.0.1 and log every query.
 * @returns {Promise<{ lookups: { at: number, name: string }[], close: () => Promise<void> } | { error: string }>}
 */
export async function startDnsLogger() {
  const dir = mkdtempSync(join(tmpdir(), 'sessref-agents-dns-'));
  const resolv = join(dir, 'resolv.conf');
  writeFileSync(resolv, 'nameserver 127.0.0.1\noptions attempts:1 timeout:1\n');
  const mounted = await run('mount', ['--bind', resolv, '/etc/resolv.conf'], { timeoutMs: 10_000, label: 'mount resolv.conf' })
    .catch((error) => ({ code: -1, stderr: error.message }));
  // The folder only holds the resolver file: gone with the logger (the bind mount keeps its inode while the namespace lives).
  const removeDir = () => rmSync(dir, { recursive: true, force: true });
  if (mounted.code !== 0) {
    removeDir();
    return { error: `cannot bind-mount /etc/resolv.conf: ${(mounted.stderr ?? '').trim()}` };
  }
  const lookups = [];
  const socket = dgram.createSocket('udp4');
  socket.on('message', (message, remote) => {
    if (message.length < 12) return;
    lookups.push({ at: Date.now(), name: queryName(message) });
    socket.send(nxdomain(message), remote.port, remote.address);
  });
  try {
    await new Promise((resolve, reject) => {
      socket.once('error', reject);
      socket.bind(53, '127.0.0.1', resolve);
    });
  } catch (error) {
    removeDir();
    return { error: `cannot listen on 127.0.0.1:53: ${error.message}` };
  }
  return { lookups, close: () => new Promise((resolve) => socket.close(() => { removeDir(); resolve(); })) };
}
