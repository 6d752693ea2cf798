#!/usr/bin/env node
// A namespace import: Node 20 lacks enableCompileCache, and must still reach the version check below.
import * as nodeModule from 'node:module';

// The dsh JSONL persistence reads zstd through node:zlib, which has it from Node 22.15: check before loading it.
const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 15)) {
  const message = `sessref needs Node.js 22.15 or newer, this is ${process.version}`;
  const hint = 'install Node.js 22 (https://nodejs.org, or `nvm install 22`) and run sessref with it first on PATH; in a clone of sessref, npm scripts and npx already use its node@22 package';
  process.stderr.write(
    process.argv.includes('--json')
      ? `${JSON.stringify({ error: { code: 'NODE_VERSION', message, hint, exitCode: 1 } })}\n`
      : `error NODE_VERSION: ${message} (fix: ${hint})\n`,
  );
  process.exit(1);
}

// A reader that stops early (`sessref show X | head -1`) closes the pipe: that ends the output, not in a crash.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE' || error.code === 'ERR_STREAM_DESTROYED') process.exit(process.exitCode ?? 0);
  throw error;
});

// Node keeps the compiled code of every module sessref loads (in its default cache directory, under the
// system's temporary folder; NODE_DISABLE_COMPILE_CACHE=1 turns it off), so a fresh process skips compiling them.
nodeModule.enableCompileCache();

const { main } = await import('./cli.js');
// Standard input is opened only by a command that reads it: opening it (a terminal, a pipe) loads Node's network stack.
const io = { stdout: process.stdout, stderr: process.stderr, env: process.env, get stdin() { return process.stdin; } };
const code = await main(process.argv.slice(2), io);

// main resolves once its command is done, every file it writes written and closed. What the event loop still
// holds then is V8's housekeeping (waiting for it cost a 2,000-session `list` about 7% of its CPU time), worth
// nothing to a process that is ending: end once stdout and stderr have taken every byte (a pipe or a terminal
// may still hold some on some systems).
process.exitCode = code;
await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
process.exit(code);

/** Resolves when everything written to `stream` so far has left it. */
function flushed(stream: NodeJS.WriteStream): Promise<void> {
  return stream.writableLength === 0 ? Promise.resolve() : new Promise((resolve) => stream.write('', () => resolve()));
}
