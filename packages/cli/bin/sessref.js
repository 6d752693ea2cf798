#!/usr/bin/env node
// The `sessref` command. npm links a package's bin only when its file exists
// at install time, and the real entry point, bundle/bin.js (the CLI bundled
// by scripts/bundle-cli.mjs), exists only once the package is built. This
// file always exists: it runs the build, or says how to make one.
//
// It loads nothing before the bundle: an import of `node:fs` to look for the
// file first would cost every command several milliseconds (the built-in's
// module facade loads the whole of fs), so a missing bundle is told by the
// import's own failure instead.
const entry = new URL('../bundle/bin.js', import.meta.url);
try {
  await import(entry.href);
} catch (error) {
  if (error?.code !== 'ERR_MODULE_NOT_FOUND' || error.url !== entry.href) throw error;
  const message = 'sessref is not built yet: packages/cli/bundle/bin.js is missing';
  const hint = 'run `npm run build` at the repository root, then run sessref again';
  process.stderr.write(
    process.argv.includes('--json')
      ? `${JSON.stringify({ error: { code: 'NOT_BUILT', message, hint, exitCode: 1 } })}\n`
      : `error NOT_BUILT: ${message} (fix: ${hint})\n`,
  );
  process.exit(1);
}
