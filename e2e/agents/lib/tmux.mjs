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
  const capture = async () => (await tmux(['capture-pane', '-p', '-t', 'agent'])).stdout;
  const type = async (text) => { await tmux(['send-keys', '-t', 'agent', '-l', text]); };
  const key = async (name, times = 1) => { await tmux(['send-keys', '-t', 'agent', ...Array.from({ length: times }, () => name)]); };
  return {
    serverPid,
    capture,
    type,
    key,
    /** Type a line, and press Enter once the screen shows it (up to 5 s). */
    submit: async (text) => {
      await type(text);
      await poll(async () => (await capture()).includes(text), 5000);
      await key('Enter');
    },
    alive: async () => (await tmux(['has-session', '-t', 'agent'])).code === 0,
    /**
     * Wait (up to `ms`) until the screen stays the same for `quietMs`: a TUI
     * still at work redraws (spinners, timers), and an Enter it takes then
     * can be queued or lost.
     */
    settle: async (quietMs = 1000, ms = 15_000) => {
      let last;
      let since = Date.now();
      return poll(async () => {
        const screen = await capture();
        if (screen !== last) [last, since] = [screen, Date.now()];
        return Date.now() - since >= quietMs;
      }, ms);
    },
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
