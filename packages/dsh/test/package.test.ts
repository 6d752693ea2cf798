/**
 * The published manifest: peer ranges that npm and pnpm both accept across
 * the whole dsh 0.1 and 0.2 lines (prereleases included), and the subpaths a dsh
 * bundle and the Typert loader import.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import semver from 'semver';

const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  peerDependencies: Record<string, string>;
  exports: Record<string, unknown>;
};
const dshPeers = Object.entries(manifest.peerDependencies).filter(([name]) => name.startsWith('@deepseek-ai/dsh-'));

// npm checks peers with plain `satisfies`; pnpm may also include prereleases. Both must agree.
const modes = [{}, { includePrerelease: true }];

describe('peer ranges over the dsh 0.1 and 0.2 lines', () => {
  it.each([
    '0.1.0-rc.8',
    '0.1.0',
    '0.1.1-rc.0',
    '0.1.1-rc.2',
    '0.1.1',
    '0.1.3-alpha.1',
    '0.1.5-rc.1',
    '0.1.5',
    '0.1.7-rc.2',
    '0.1.9-rc.3',
    '0.1.42',
    '0.2.0-rc.1',
    '0.2.0-rc.2',
    '0.2.0',
    '0.2.2-alpha.2',
    '0.2.3-alpha.2',
    '0.2.9-rc.1',
    '0.2.15',
  ])('accept %s', (version) => {
    expect(dshPeers.length).toBeGreaterThan(0);
    for (const [, range] of dshPeers) for (const options of modes) expect(semver.satisfies(version, range, options)).toBe(true);
  });

  it.each(['0.1.0-rc.7', '0.0.9', '0.3.0-rc.1', '0.3.0', '1.0.0'])('reject %s', (version) => {
    for (const [, range] of dshPeers) for (const options of modes) expect(semver.satisfies(version, range, options)).toBe(false);
  });

  it('accept the dsh versions installed for the tests', () => {
    for (const [name, range] of dshPeers) {
      const installed = JSON.parse(readFileSync(new URL(`../../../node_modules/${name}/package.json`, import.meta.url), 'utf8')) as { version: string };
      expect(semver.satisfies(installed.version, range), `${name}@${installed.version} against ${range}`).toBe(true);
    }
  });
});

describe('exports', () => {
  it('offers the subpaths dsh loads', () => {
    expect(Object.keys(manifest.exports)).toEqual(expect.arrayContaining(['.', './title-index', './package.json']));
  });
});
