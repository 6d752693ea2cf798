#!/usr/bin/env node
// The dsh JSONL persistence needs Node 22 (zstd in node:zlib), so check before loading it.
const major = Number(process.versions.node.split('.')[0]);
if (major < 22) {
  process.stderr.write(
    `error NODE_VERSION: sessref needs Node.js 22 or newer, this is ${process.version} (fix: run it through npm scripts, which use the node@22 package, or install Node 22)\n`,
  );
  process.exit(1);
}

const { main } = await import('./cli.js');
process.exitCode = await main(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env });
