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

// Node keeps the compiled code of every module sessref loads (in its default cache directory, under the
// system's temporary folder; NODE_DISABLE_COMPILE_CACHE=1 turns it off), so a fresh process skips compiling them.
nodeModule.enableCompileCache();

const { allFlushed, main, standardOutput } = await import('./cli.js');
// Standard input is opened only by a command that reads it: opening it (a terminal, a pipe) loads Node's network stack.
const io = { stdout: standardOutput(1), stderr: standardOutput(2), env: process.env, get stdin() { return process.stdin; } };
const code = await main(process.argv.slice(2), io);

// main resolves once its command is done, every file it writes written and closed. What the event loop still
// holds then is V8's housekeeping (waiting for it cost a 2,000-session `list` about 7% of its CPU time), worth
// nothing to a process that is ending: end once stdout and stderr have taken every byte (a pipe or a terminal
// may still hold some on some systems).
process.exitCode = code;
await allFlushed();
process.exit(code);
