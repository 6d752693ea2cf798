/**
 * A private tmux server (its own socket) for driving a terminal UI: start a
 * command in a detached session, type, read the screen, and end the server by
 * its PID (tmux daemonizes, so it is outside our process groups).
 */
import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import process from 'node:process';
import { run } from '../../dsh-app/lib/proc.mjs';

export async function hasTmux() {
  const result = await run('tmux', ['-V'], { timeoutMs: 5000, label: 'tmux -V' }).catch(() => undefined);
  return result?.code === 0 ? result.stdout.trim() : undefined;
}

/** Poll `predicate` every 200 ms until it returns a truthy value or `ms` pass. */
export async function poll(predicate, ms) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await predicate();
    if (value) return value;
    if (Date.now() > deadline) return undefined;
    await sleep(200);
  }
}

export async function startTmux({ socket, cwd, env, command }) {
  const tmux = (args, timeoutMs = 10_000) => run('tmux', ['-S', socket, ...args], { env, timeoutMs, label: `tmux ${args[0]}` });
  const started = await tmux(['new-session', '-d', '-s', 'agent', '-x', '200', '-y', '50', '-c', cwd, command]);
  if (started.code !== 0) throw new Error(`tmux new-session failed: ${started.stderr.trim()}`);
  const pidResult = await tmux(['display-message', '-p', '-t', 'agent', '#{pid}']);
  const serverPid = Number(pidResult.stdout.trim());
  return {
    serverPid,
    capture: async () => (await tmux(['capture-pane', '-p', '-t', 'agent'])).stdout,
    type: async (text) => { await tmux(['send-keys', '-t', 'agent', '-l', text]); },
    key: async (name, times = 1) => { await tmux(['send-keys', '-t', 'agent', ...Array.from({ length: times }, () => name)]); },
    alive: async () => (await tmux(['has-session', '-t', 'agent'])).code === 0,
    /** End the server and everything in it, by PID. */
    kill: async () => {
      await tmux(['kill-server']).catch(() => {});
      if (Number.isInteger(serverPid) && serverPid > 0) {
        try { process.kill(serverPid, 'SIGKILL'); } catch { /* already gone */ }
      }
      return !existsSync(socket) || true;
    },
  };
}
