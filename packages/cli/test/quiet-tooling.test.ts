/**
 * `npm test` prints what concerns the change under test (#26, item 8): no
 * jscpd promotion after the duplication gate, no Node notice that node:sqlite
 * is experimental from the suites that load it.
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const REPO = fileURLToPath(new URL('../../..', import.meta.url));
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sessref-quiet-'));
});

afterAll(() => rm(dir, { recursive: true, force: true }));

describe('npm test output', () => {
  it('jscpd, run with the repository config, prints its report and no tips or promotion', async () => {
    await writeFile(join(dir, 'one.ts'), 'export const one = 1;\n');
    const jscpd = join(REPO, 'node_modules', 'jscpd', 'bin', 'jscpd');
    const run = spawnSync(process.execPath, [jscpd, '--config', join(REPO, '.jscpd.json'), dir], { cwd: REPO, encoding: 'utf8', env: { ...process.env, CI: '' } });
    expect(run.status, run.stderr).toBe(0);
    // The run ends with its timing line alone.
    expect(run.stdout.trimEnd().split('\n').at(-1)).toMatch(/time: [\d.]+ms$/);
    expect(run.stdout).not.toMatch(/npx skills|opencollective|gangsta|💡|💖|🎩/i);
  });

  it('a test worker loading node:sqlite prints nothing on stderr', () => {
    // The flags vitest starts this worker with, as the suites that load node:sqlite run under them.
    const flags = process.execArgv.filter((flag) => flag.startsWith('--disable-warning='));
    const run = spawnSync(process.execPath, [...flags, '-e', "require('node:sqlite')"], { encoding: 'utf8' });
    expect(run.status).toBe(0);
    expect(run.stderr).toBe('');
  });
});
