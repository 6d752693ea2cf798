#!/usr/bin/env node
// A namespace import: Node 20 lacks enableCompileCache, and must still reach the version check below.
import * as nodeModule from 'node:module';

// The dsh JSONL persistence needs Node 22 (zstd in node:zlib), so check before loading it.
const major = Number(process.versions.node.split('.')[0]);
if (major < 22) {
  const message = `sessref needs Node.js 22 or newer, this is ${process.version}`;
  const hint = 'run it through npm scripts, which use the node@22 package, or install Node 22';
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
process.exitCode = await main(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env, stdin: process.stdin });
