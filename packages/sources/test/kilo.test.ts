/**
 * Kilo (the Kilo Code CLI, an opencode fork) on opencode's reader: the real
 * 7.7.7 sample read in place from `../shared` with the conversation Kilo
 * would continue from, Kilo's own folder, file names and `KILO_DB`, and its
 * place among the local agents.
 */
import { copyFileSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { localSources } from '@sessref/sources';
import { kiloSource } from '../src/kilo/source.js';
import { carried as carriedBy, itReadsEverySample, samplesOf, scratchFolder, type Item } from './support.js';
import type { SurfaceMessage } from '@sessref/core';

const SAMPLE = join(samplesOf('kilo'), 'real-7.7.7');
const SESSION = 'kilo:ses_db60c47f3ffeGVxC6PViCoO5Qi';
const SAMPLE_DATABASE = join(SAMPLE, '.local/share/kilo/kilo.db');
const carried = (messages: readonly SurfaceMessage[]): Item[] => carriedBy({ createdAt: 0, messages: [...messages], throughRecord: null });
const scratch = scratchFolder('sessref-kilo-');

describe('the real Kilo 7.7.7 sample, read in place', () => {
  itReadsEverySample(SAMPLE, {
    '.local/share/kilo/kilo.db': async () => {
      const before = statSync(SAMPLE_DATABASE, { bigint: true });
      const source = kiloSource({ environment: { home: SAMPLE, env: {} } });
      expect(await source.listSessions()).toEqual([{ id: SESSION, createdAt: 1796537038860, cwd: '/home/user/project' }]);
      expect(source.problems()).toEqual([]);
      // Kilo never replaced its placeholder title ("New session - <time>"): the first prompt titles the session.
      expect(await source.readTitles([SESSION])).toEqual([{ sessionId: SESSION, status: 'fulfilled', title: 'Kilo · first prompt: say hi' }]);
      const surface = await source.readSurface(SESSION);
      // After `summarize`: the summary, then the prompt after it and its answer. The agent-switch reminder Kilo
      // added to that prompt (a synthetic text part) is Kilo's text, not the user's.
      expect(carried(surface.messages)).toEqual([
        ['checkpoint', 'Hello from the fake model. (request 4)'],
        ['user', 'third prompt after compaction'],
        ['assistant', 'Hello from the fake model. (request 5)'],
      ]);
      const reminder = surface.messages.find((message) => message.origin === 'other' && JSON.stringify(message.content).includes('<system-reminder>'));
      expect(reminder?.role).toBe('user');
      expect(JSON.stringify(surface.messages.filter((message) => message.origin !== 'other'))).not.toMatch(/system-reminder|notes\.txt/);
      const after = statSync(SAMPLE_DATABASE, { bigint: true });
      expect([after.size, after.mtimeNs]).toEqual([before.size, before.mtimeNs]);
    },
    'tables.dump.jsonl': async () => {
      // Not read: the database's rows as JSON. The reader counts exactly its 9 messages and 20 parts (Kilo's own board tables are not in the dump, and never read).
      const tables = new Map(
        readFileSync(join(SAMPLE, 'tables.dump.jsonl'), 'utf8')
          .split('\n')
          .filter((line) => line !== '')
          .map((line) => JSON.parse(line) as { table: string; rows: unknown[] })
          .map(({ table, rows }) => [table, rows.length]),
      );
      expect([tables.get('message'), tables.get('part')]).toEqual([9, 20]);
      const surface = await kiloSource({ environment: { home: SAMPLE, env: {} } }).readSurface(SESSION);
      expect(surface.capturedThroughSeq).toBe(9 + 20 - 1);
    },
    '.config/kilo/kilo.json': () => {
      // Kilo's configuration (opencode's schema, the fake provider): never a session, never opened.
      const config = JSON.parse(readFileSync(join(SAMPLE, '.config/kilo/kilo.json'), 'utf8')) as Record<string, unknown>;
      expect(config['small_model']).toBe('fake/gpt-fake');
    },
  });
});

describe("Kilo's own names", () => {
  /** A scratch home holding the sample's database under `name` in Kilo's data folder. */
  function homeWith(home: string, folder: string, name: string): string {
    mkdirSync(join(scratch, home, folder), { recursive: true });
    copyFileSync(SAMPLE_DATABASE, join(scratch, home, folder, name));
    return join(scratch, home);
  }

  it('reads kilo.db and kilo-<channel>.db in $XDG_DATA_HOME/kilo, never an opencode database beside them', async () => {
    const home = homeWith('channels', 'data/kilo', 'kilo-beta.db');
    copyFileSync(SAMPLE_DATABASE, join(home, 'data/kilo/opencode.db'));
    const env = { XDG_DATA_HOME: join(home, 'data') };
    const source = kiloSource({ environment: { home: join(scratch, 'nobody'), env } });
    expect((await source.listSessions()).map((header) => header.id)).toEqual([SESSION]);
    expect(carried((await source.readSurface(SESSION)).messages).at(-1)).toEqual(['assistant', 'Hello from the fake model. (request 5)']);
  });

  it('reads the database KILO_DB names (relative to the data folder), and not the one OPENCODE_DB names', async () => {
    const home = homeWith('moved', '.local/share/kilo/elsewhere', 'chosen.db');
    const withKiloDb = kiloSource({ environment: { home, env: { KILO_DB: 'elsewhere/chosen.db' } } });
    expect((await withKiloDb.listSessions()).map((header) => header.id)).toEqual([SESSION]);
    const withOpencodeDb = kiloSource({ environment: { home, env: { OPENCODE_DB: 'elsewhere/chosen.db' } } });
    expect(await withOpencodeDb.listSessions()).toEqual([]);
  });

  it('is a local agent of its own beside opencode, its sessions named Kilo, at its default place', async () => {
    const home = homeWith('default', '.local/share/kilo', 'kilo.db');
    // opencode's folder beside it, empty: each agent lists its own folder's sessions.
    mkdirSync(join(home, '.local/share/opencode'), { recursive: true });
    const locals = localSources({ home, env: { SESSREF_CACHE_DIR: join(home, 'cache') } });
    expect(locals.map(({ name, displayName, home: folder }) => [name, displayName, folder])).toEqual([
      ['opencode', 'opencode', join(home, '.local/share/opencode')],
      ['kilo', 'Kilo', join(home, '.local/share/kilo')],
    ]);
    const kilo = locals.find((local) => local.name === 'kilo')!.source;
    expect((await kilo.listSessions()).map((header) => header.id)).toEqual([SESSION]);
    expect(await locals.find((local) => local.name === 'opencode')!.source.listSessions()).toEqual([]);
    expect(kilo.owns(SESSION)).toBe(true);
  });
});
