/**
 * `sessref serve [--root DIR] [--port N] [--host H] [--seed-if-empty]`: the web inspector.
 *
 * It opens its own Engine on `root` (or uses `options.engine`, which it then
 * leaves open), writes the demo sessions first when `seedFirst` is set,
 * prints the URL with the per-launch token on stdout (as Jupyter does) and a
 * short banner on stderr, and resolves once SIGINT or SIGTERM (or
 * `options.signal`) has closed the server and the engine. A busy port rejects
 * with PORT_IN_USE, a bad address with a usage error. `--port 0` picks a free
 * port.
 */
import { Engine } from '../engine/engine.js';
import { CliError, usageError } from '../failure.js';
import { terminalSafe } from '../output.js';
import { seedDemo } from '../seed/demo.js';
import { isLoopback } from '../server/address.js';
import { startServer } from '../server/server.js';
import { errorCode } from '@sessref/core';
import { processPlace } from '../remote/remotes.js';

export interface ServeOptions {
  root: string;
  host: string;
  port: number;
  /**
   * Write the demo sessions first. The CLI sets it only for `npm start`'s
   * demo root while that is missing or empty (`OpenedRoot.demoToSeed`): any
   * other root is served as it is.
   */
  seedFirst?: boolean;
  /** An engine the caller opened (e.g. after seeding); not closed by serve. */
  engine?: Engine;
  /** Stops the server, like Ctrl+C (for tests and embedding). */
  signal?: AbortSignal;
  /** Other agents whose sessions the inspector offers beside the root's. */
  sources?: readonly string[];
  /** How long a send waits for another sessref process writing the same session. */
  lockWaitMs?: number;
  /** How long the content index waits, once, for another process's lock on its file. */
  searchIndexWaitMs?: number;
  /** Sync every remote (`sessref remote`) at start, then every this many minutes while serving; off when absent. */
  syncEveryMinutes?: number;
}

/** Just the writes serve needs; the CLI's `Io` fits. */
export interface ServeIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

export async function serveCommand(options: ServeOptions, io: ServeIo): Promise<void> {
  if (options.seedFirst === true) say(io.stderr, `seeded ${await seed(options.root)} demo sessions into ${options.root}`);
  const engine =
    options.engine ??
    (await Engine.open({
      root: options.root,
      watchLogs: true,
      ...(options.lockWaitMs === undefined ? {} : { lockWaitMs: options.lockWaitMs }),
      ...(options.searchIndexWaitMs === undefined ? {} : { searchIndexWaitMs: options.searchIndexWaitMs }),
      ...(options.sources === undefined ? {} : { sources: options.sources }),
    }));
  try {
    const server = await listenOrExplain(engine, options, io);
    say(io.stderr, `sessref inspector over ${options.root}`);
    if (!isLoopback(options.host)) say(io.stderr, `warning: listening on ${options.host}; anyone who can reach it and has the token can read these sessions`);
    say(io.stdout, server.url);
    say(io.stderr, 'Open the URL above (it carries the access token). Press Ctrl+C to stop.');
    // Loaded only here: syncing brings rsync's child processes, which a server without --sync-every never starts.
    const stopSyncing =
      options.syncEveryMinutes === undefined
        ? undefined
        : (await import('../remote/syncing.js')).keepMirrorsSynced(processPlace(), options.syncEveryMinutes * 60_000, (line) => say(io.stderr, line));
    await stopRequested(options.signal);
    await stopSyncing?.();
    await server.close();
  } finally {
    if (!options.engine) await engine.close();
  }
}

/** One line of the server's own output, {@link terminalSafe} like every other (a root path or a logged request may carry anything). */
function say(stream: ServeIo['stderr'], line: string): void {
  stream.write(`${terminalSafe(line)}\n`);
}

async function listenOrExplain(engine: Engine, options: ServeOptions, io: ServeIo) {
  try {
    return await startServer(engine, { host: options.host, port: options.port, log: (line) => say(io.stderr, line) });
  } catch (error) {
    const code = errorCode(error);
    if (code === 'EADDRINUSE') {
      // Not a usage error: the command was right, the port is taken (often by another inspector).
      throw new CliError(
        'PORT_IN_USE',
        `port ${options.port} on ${options.host} is in use`,
        'pass --port N, or --port 0 for a free one; through npm start: npm start -- --port 0',
        { cause: error },
      );
    }
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') throw usageError(`cannot listen on ${options.host}`, 'use an address of this machine, e.g. --host 127.0.0.1');
    throw error;
  }
}

/**
 * Seed through an engine of its own, closed before serving: the sessions it
 * writes must not stay live in the serving engine, which reads and appends
 * through the root like any other process.
 */
async function seed(root: string): Promise<number> {
  const engine = await Engine.open({ root });
  try {
    return (await seedDemo(engine)).length;
  } finally {
    await engine.close();
  }
}

/** Resolve on SIGINT, SIGTERM or `signal`, whichever comes first. */
function stopRequested(signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop).off('SIGTERM', stop);
      signal?.removeEventListener('abort', stop);
      resolve();
    };
    if (signal?.aborted) return stop();
    process.once('SIGINT', stop).once('SIGTERM', stop);
    signal?.addEventListener('abort', stop, { once: true });
  });
}
