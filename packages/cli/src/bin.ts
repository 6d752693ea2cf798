#!/usr/bin/env node
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

const { main } = await import('./cli.js');
process.exitCode = await main(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env, stdin: process.stdin });
