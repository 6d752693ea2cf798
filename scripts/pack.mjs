#!/usr/bin/env node
/**
 * `npm run pack`: write installable tarballs of the workspace packages to
 * `artifacts/`. The @sessref packages are on no registry, so each tarball
 * carries the @sessref packages it depends on as bundled dependencies: a dsh
 * profile installs `artifacts/sessref-dsh-<version>.tgz` with no registry
 * lookup of `@sessref/*`. Run after `tsc -b` (the `pack` script does).
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
const OUT = join(ROOT, 'artifacts');

/** Each package and the workspace packages its tarball carries. */
const TARBALLS = [
  { dir: 'packages/core', bundled: [] },
  { dir: 'packages/dsh', bundled: ['packages/core', 'packages/sources'] },
  { dir: 'packages/cli', bundled: ['packages/core', 'packages/sources', 'packages/dsh', 'packages/host'] },
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

function requireBuilt(dir, manifest) {
  if (!existsSync(join(ROOT, dir, manifest.main ?? 'dist'))) {
    throw new Error(`${manifest.name} is not built: run \`npm run build\` (the pack script does) before packing`);
  }
}

function pack({ dir, bundled }) {
  const manifest = manifestOf(dir);
  const staging = mkdtempSync(join(tmpdir(), 'sessref-pack-'));
  try {
    const bundledNames = bundled.map((bundledDir) => {
      const bundledManifest = manifestOf(bundledDir);
      requireBuilt(bundledDir, bundledManifest);
      stage(bundledDir, join(staging, 'node_modules', bundledManifest.name), bundledManifest);
      return bundledManifest.name;
    });
    const packed = bundledNames.length === 0 ? manifest : { ...manifest, bundleDependencies: bundledNames };
    stage(dir, staging, packed);
    const output = execFileSync('npm', ['pack', '--json', '--pack-destination', OUT], { cwd: staging, encoding: 'utf8' });
    const [{ filename, size, entryCount }] = JSON.parse(output);
    return { name: manifest.name, file: join('artifacts', filename), size, entryCount };
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

mkdirSync(OUT, { recursive: true });
for (const tarball of TARBALLS) {
  const { name, file, size, entryCount } = pack(tarball);
  console.log(`${name.padEnd(14)} ${file}  (${entryCount} files, ${(size / 1024).toFixed(0)} KiB)`);
}
