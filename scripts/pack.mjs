#!/usr/bin/env node
/**
 * `npm run pack`: write installable tarballs of the workspace packages to
 * `artifacts/`. The @sessref packages are on no registry, so each tarball
 * carries the @sessref packages it depends on as bundled dependencies: a dsh
 * profile installs `artifacts/sessref-dsh-<version>.tgz` with no registry
 * lookup of `@sessref/*`. The CLI's tarball goes further: its command runs
 * from its bundle (scripts/bundle-cli.mjs), which holds every dependency, so
 * the tarball declares none and installs with no registry at all. Run after
 * `npm run build` (the `pack` script does).
 *
 * `node scripts/pack.mjs [--out DIR] [PACKAGE_DIR...]` packs only the
 * packages named (all three by default) into DIR (default `artifacts/`).
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const ROOT = resolve(import.meta.dirname, '..');

/** Each package, the workspace packages its tarball carries, and what must be built before it is packed. */
const TARBALLS = [
  { dir: 'packages/core', bundled: [], built: ['dist'] },
  { dir: 'packages/dsh', bundled: ['packages/core', 'packages/platform', 'packages/search-index', 'packages/sources'], built: ['dist'] },
  { dir: 'packages/cli', bundled: [], built: ['bundle/bin.js', 'web-dist/index.html'], manifest: standaloneCli },
];

function manifestOf(dir) {
  return JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8'));
}

/** Copy what npm would publish of `dir` (its `files`, the manifest, the licence) into `target`. */
function stage(dir, target, manifest) {
  mkdirSync(target, { recursive: true });
  for (const entry of manifest.files ?? []) {
    const source = join(ROOT, dir, entry);
    if (existsSync(source)) cpSync(source, join(target, entry), { recursive: true, filter: isPublished });
  }
  cpSync(join(ROOT, 'LICENSE'), join(target, 'LICENSE'));
  writeFileSync(join(target, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
}

/** Build bookkeeping and source maps (their sources are not published) stay out. */
function isPublished(path) {
  return !path.endsWith('.tsbuildinfo') && !path.endsWith('.map');
}

/**
 * The CLI's manifest as its tarball carries it: no dependencies, since the
 * bundle holds them all, but koffi, the one module the bundle leaves to Node
 * (loaded on Windows only), as an optional one at the range dsh's JSONL
 * persistence asks: npm skips it where it cannot be fetched, as offline.
 */
function standaloneCli({ dependencies: _bundled, devDependencies: _dev, scripts: _scripts, ...manifest }) {
  const persistence = createRequire(join(ROOT, 'packages/cli/package.json'))('@deepseek-ai/dsh-session-persistence-jsonl/package.json');
  return { ...manifest, optionalDependencies: { koffi: persistence.dependencies.koffi } };
}

function requireBuilt(dir, paths) {
  const missing = paths.filter((path) => !existsSync(join(ROOT, dir, path)));
  if (missing.length > 0) {
    throw new Error(`${dir} is not built (${missing.join(', ')} missing): run \`npm run build\` (the pack script does) before packing`);
  }
}

function pack({ dir, bundled, built, manifest: rewrite = (manifest) => manifest }, out) {
  requireBuilt(dir, built);
  const manifest = rewrite(manifestOf(dir));
  const staging = mkdtempSync(join(tmpdir(), 'sessref-pack-'));
  try {
    const bundledNames = bundled.map((bundledDir) => {
      const bundledManifest = manifestOf(bundledDir);
      requireBuilt(bundledDir, ['dist']);
      stage(bundledDir, join(staging, 'node_modules', bundledManifest.name), bundledManifest);
      return bundledManifest.name;
    });
    const packed = bundledNames.length === 0 ? manifest : { ...manifest, bundleDependencies: bundledNames };
    stage(dir, staging, packed);
    const output = execFileSync('npm', ['pack', '--json', '--pack-destination', out], { cwd: staging, encoding: 'utf8' });
    const [{ filename, size, entryCount }] = JSON.parse(output);
    return { name: manifest.name, file: join(out, filename), size, entryCount };
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

const { values, positionals } = parseArgs({ options: { out: { type: 'string', default: join(ROOT, 'artifacts') } }, allowPositionals: true });
const unknown = positionals.filter((dir) => !TARBALLS.some((tarball) => tarball.dir === dir));
if (unknown.length > 0) throw new Error(`pack.mjs packs ${TARBALLS.map((tarball) => tarball.dir).join(', ')}, not ${unknown.join(', ')}`);
const out = resolve(values.out);
mkdirSync(out, { recursive: true });
for (const tarball of TARBALLS.filter(({ dir }) => positionals.length === 0 || positionals.includes(dir))) {
  const { name, file, size, entryCount } = pack(tarball, out);
  console.log(`${name.padEnd(14)} ${file}  (${entryCount} files, ${(size / 1024).toFixed(0)} KiB)`);
}
