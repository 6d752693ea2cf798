/**
 * The opencode reader: every shared sample (a JSON storage tree) read with
 * the conversation it must give, a SQLite store built here with opencode's
 * schema (session.sql.ts) and read without a byte written, the two stores
 * deduplicated, folds of generated messages (revert, compaction, parts), and
 * damaged rows reported while the others list.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DatabaseSync } from 'node:sqlite';
import fc from 'fast-check';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { SurfaceMessage } from '@sessref/core';
import { opencodeSource, SourceReadError } from '@sessref/sources';
import { opencodeSurface } from '../src/opencode/fold.js';
import type { OpencodeMessage, OpencodePart } from '../src/opencode/model.js';
import { carried as carriedBy, type Item } from './support.js';

const BUILT_SOURCES = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const SAMPLES = fileURLToPath(new URL('../../../../shared/cross-harness-samples/opencode/agent-sessions/', import.meta.url));

/** What a snapshot of these surface messages carries. */
const carried = (messages: readonly SurfaceMessage[]): Item[] => carriedBy({ createdAt: 0, messages: [...messages], throughRecord: null });

const scratch = mkdtempSync(join(tmpdir(), 'sessref-opencode-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A data folder (`$XDG_DATA_HOME/opencode`) under a fresh XDG_DATA_HOME. */
function dataHome(name: string): { env: Record<string, string>; data: string } {
  const xdg = join(scratch, name);
  mkdirSync(join(xdg, 'opencode'), { recursive: true });
  return { env: { XDG_DATA_HOME: xdg }, data: join(xdg, 'opencode') };
}

const sourceFor = (env: Record<string, string>) => opencodeSource({ environment: { home: join(scratch, 'nobody'), env } });

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort();
}

describe('the shared opencode samples (JSON storage trees)', () => {
  const storages = ['storage_v2', 'storage_legacy'];

  it('reads every session of both trees, with the conversation opencode would show', async () => {
    const { env, data } = dataHome('samples');
    // Copied into a temporary data folder, because the reader follows no link out of opencode's own folder.
    cpSync(join(SAMPLES, 'storage_v2'), join(data, 'storage'), { recursive: true });
    const source = sourceFor(env);
    expect(await source.listSessions()).toEqual([
      { id: 'opencode:s_stage0_large', createdAt: 1730000100000, cwd: '/tmp/large' },
      { id: 'opencode:s_stage0_small', createdAt: 1730000000000, cwd: '/tmp/repo' },
    ]);
    expect(source.problems()).toEqual([]);
    expect(await source.readTitles(['opencode:s_stage0_small', 'opencode:s_stage0_large'])).toEqual([
      { sessionId: 'opencode:s_stage0_small', status: 'fulfilled', title: 'opencode · OpenCode Small' },
      { sessionId: 'opencode:s_stage0_large', status: 'fulfilled', title: 'opencode · OpenCode Large' },
    ]);
    // The reply "Found 2 files." has no finish, no completion time and no error, and nothing follows it: still being written.
    expect(carried((await source.readSurface('opencode:s_stage0_small')).messages)).toEqual([['user', 'Hello']]);
    // m_assistant_large_1 (finish and an abort error) has only synthetic text, a tool, a file, reasoning, steps,
    // a patch and a compaction part on an assistant message (opencode puts those on user messages: no compaction);
    // the last reply "Ok" has no finish, completion time or error.
    const large = await source.readSurface('opencode:s_stage0_large');
    expect(carried(large.messages)).toEqual([
      ['user', 'Step 1'],
      ['user', 'Step 2'],
    ]);
    expect(large.messages).toContainEqual({ role: 'user', origin: 'other', content: [{ type: 'text', text: 'Command failed with exit code 1.' }] });
    expect(large.capturedThroughSeq).toBe(14);
  });

  it('reads the legacy tree, whose parts are flat files naming their message', async () => {
    const { env, data } = dataHome('legacy');
    cpSync(join(SAMPLES, 'storage_legacy'), join(data, 'storage'), { recursive: true });
    const source = sourceFor(env);
    expect(await source.listSessions()).toEqual([{ id: 'opencode:s_stage0_drift', createdAt: 1730000200000, cwd: '/tmp/drift' }]);
    expect(await source.readTitles(['opencode:s_stage0_drift'])).toEqual([{ sessionId: 'opencode:s_stage0_drift', status: 'fulfilled', title: 'opencode · OpenCode Drift' }]);
    // The user message has no parts at all; the only reply has no finish and is the last message.
    const surface = await source.readSurface('opencode:s_stage0_drift');
    expect(carried(surface.messages)).toEqual([]);
    expect(surface.messages).toEqual([]);
    expect(surface.capturedThroughSeq).toBe(3);
  });

  it('accounts for every sample file', () => {
    const read = new Set(storages.flatMap((storage) => filesUnder(join(SAMPLES, storage)).map((file) => `${storage}/${file}`)));
    // `migration` is opencode's schema-migration counter, not a session: the reader never opens it.
    const notSessions = ['storage_v2/migration'];
    const folders = [...read].filter((file) => !file.endsWith('.json') && !notSessions.includes(file));
    for (const folder of folders) read.delete(folder);
    for (const file of notSessions) read.delete(file);
    expect([...read].every((file) => /\/(session|message|part)\//.test(file))).toBe(true);
    expect(read.size).toBe(27);
  });
});

/** Write each JSON object at its path under `folder`. */
function writeJsonFiles(folder: string, files: Record<string, object>): void {
  for (const [path, object] of Object.entries(files)) {
    mkdirSync(dirname(join(folder, path)), { recursive: true });
    writeFileSync(join(folder, path), JSON.stringify(object));
  }
}

/** A session file of the tree (`storage/session/<project>/<file>`), with a creation time. */
const treeSession = (id: string, extra: object = {}) => ({ id, title: `Title ${id}`, directory: '/work/app', time: { created: 1_730_000_000_000, updated: 1_730_000_000_000 }, ...extra });

describe('the JSON tree never reads outside opencode\'s storage (#37)', () => {
  /** A data folder whose tree holds one healthy session `ses_ok`, and a secret beside the storage folder. */
  function treeWithSecret(name: string): { env: Record<string, string>; data: string; storage: string } {
    const { env, data } = dataHome(name);
    const storage = join(data, 'storage');
    writeJsonFiles(storage, {
      'session/proj/ses_ok.json': treeSession('ses_ok'),
      'message/ses_ok/msg_1.json': { id: 'msg_1', role: 'user', time: { created: 1 } },
      'part/msg_1/prt_1.json': { id: 'prt_1', type: 'text', text: 'healthy' },
    });
    // What a `../` in an id would reach: a message folder and a part folder beside `message/` and `part/`, a project file above the store.
    writeJsonFiles(storage, {
      'outside/msg_secret.json': { id: 'msg_secret', role: 'user', time: { created: 2 } },
      'secret-parts/prt_s.json': { id: 'prt_s', type: 'text', text: 'SECRET' },
    });
    writeJsonFiles(data, { 'secret-project.json': { id: 'x', worktree: '/secret/worktree' } });
    return { env, data, storage };
  }

  it('a session id that is not one path segment is refused with a code naming its file; the others list', async () => {
    const ids = fc.oneof(
      fc.constantFrom('.', '..', '../outside', '../../storage/outside', 'a/../../outside', '..\\outside', 'nul\0byte'),
      fc.tuple(fc.string({ maxLength: 4 }), fc.constantFrom('/', '\\', '\0', '/../'), fc.string({ maxLength: 4 })).map(([head, separator, tail]) => `${head}${separator}${tail}`),
    );
    let run = 0;
    await fc.assert(
      fc.asyncProperty(ids, async (id) => {
        const { env, storage } = treeWithSecret(`segment-${run++}`);
        writeJsonFiles(storage, { 'session/proj/ses_bad.json': treeSession(id) });
        const source = sourceFor(env);
        expect((await source.listSessions()).map((header) => header.id)).toEqual(['opencode:ses_ok']);
        const problems = source.problems();
        expect(problems.map((problem) => [problem.sessionId, problem.error.code])).toEqual([['opencode:ses_bad', 'SOURCE_SESSION_CORRUPT']]);
        expect(problems[0]!.error.message).toMatch(/^session\/proj\/ses_bad\.json: session id .* is not one path segment$/);
        await expect(source.readSurface(`opencode:${id}`)).rejects.toMatchObject({ code: 'SOURCE_SESSION_NOT_FOUND' });
      }),
      { numRuns: 40 },
    );
  });

  it('a message id holding ../ refuses its session instead of reading parts outside the part folder', async () => {
    const { env, storage } = treeWithSecret('message-id');
    writeJsonFiles(storage, {
      'session/proj/ses_m.json': treeSession('ses_m'),
      'message/ses_m/msg_evil.json': { id: '../secret-parts', role: 'user', time: { created: 3 } },
    });
    const source = sourceFor(env);
    expect((await source.listSessions()).map((header) => header.id).sort()).toEqual(['opencode:ses_m', 'opencode:ses_ok']);
    await expect(source.readSurface('opencode:ses_m')).rejects.toMatchObject({ code: 'SOURCE_SESSION_CORRUPT', message: expect.stringMatching(/msg_evil\.json: message id "\.\.\/secret-parts" is not one path segment/) as unknown });
    expect(carried((await source.readSurface('opencode:ses_ok')).messages)).toEqual([['user', 'healthy']]);
  });

  it('a project id holding ../ gives no working directory from a file outside the project folder', async () => {
    const { env, storage } = treeWithSecret('project-id');
    const { directory: _directory, ...withoutDirectory } = treeSession('ses_p', { projectID: '../../secret-project' });
    writeJsonFiles(storage, { 'session/proj/ses_p.json': withoutDirectory });
    const headers = await sourceFor(env).listSessions();
    expect(headers.find((header) => header.id === 'opencode:ses_p')).toEqual({ id: 'opencode:ses_p', createdAt: 1_730_000_000_000 });
  });

  it('a message folder that is a link out of the store refuses its session', async () => {
    const { env, data, storage } = treeWithSecret('linked-folder');
    const elsewhere = join(data, '..', 'elsewhere-messages');
    writeJsonFiles(elsewhere, { 'msg_x.json': { id: 'msg_x', role: 'user', time: { created: 4 } } });
    writeJsonFiles(storage, { 'session/proj/ses_l.json': treeSession('ses_l') });
    symlinkSync(elsewhere, join(storage, 'message', 'ses_l'));
    const source = sourceFor(env);
    await source.listSessions();
    await expect(source.readSurface('opencode:ses_l')).rejects.toMatchObject({ code: 'SOURCE_SESSION_UNREADABLE', message: expect.stringContaining("leads outside opencode's storage") as unknown });
  });
});

/** A database with opencode's tables (session.sql.ts, project.sql.ts), in WAL mode as opencode keeps it. */
function createDatabase(path: string): DatabaseSync {
  const database = new DatabaseSync(path);
  database.exec(`
    PRAGMA journal_mode = WAL;
    CREATE TABLE project (id TEXT PRIMARY KEY, worktree TEXT NOT NULL, time_created INTEGER, time_updated INTEGER);
    CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT NOT NULL, workspace_id TEXT, parent_id TEXT, slug TEXT NOT NULL, directory TEXT NOT NULL,
      path TEXT, title TEXT NOT NULL, version TEXT NOT NULL, share_url TEXT, revert TEXT, permission TEXT, time_created INTEGER, time_updated INTEGER,
      time_compacting INTEGER, time_archived INTEGER);
    CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, time_created INTEGER, time_updated INTEGER, data TEXT NOT NULL);
    CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT NOT NULL, session_id TEXT NOT NULL, time_created INTEGER, time_updated INTEGER, data TEXT NOT NULL);
  `);
  return database;
}

interface SessionSpec {
  id: string;
  title: string;
  created: number;
  updated?: number;
  directory?: string;
  parent?: string;
  revert?: object;
}

function addSession(database: DatabaseSync, spec: SessionSpec): void {
  database
    .prepare('INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, revert, time_created, time_updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)')
    .run(spec.id, 'proj', spec.parent ?? null, 'slug', spec.directory ?? '/work/app', spec.title, '1.18.0', spec.revert === undefined ? null : JSON.stringify(spec.revert), spec.created, spec.updated ?? spec.created);
}

function addMessage(database: DatabaseSync, sessionId: string, id: string, created: number, info: object, parts: object[]): void {
  database.prepare('INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)').run(id, sessionId, created, created, JSON.stringify(info));
  parts.forEach((part, index) => {
    database.prepare('INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)').run(`prt_${id}_${index}`, id, sessionId, created, created, JSON.stringify(part));
  });
}

const text = (value: string, extra: object = {}) => ({ type: 'text', text: value, ...extra });
const userInfo = (created: number) => ({ role: 'user', time: { created }, agent: 'build', model: { providerID: 'p', modelID: 'm' } });
const replyInfo = (created: number, parentID: string, extra: object = {}) => ({ role: 'assistant', time: { created, completed: created + 1 }, parentID, finish: 'stop', ...extra });

describe('the SQLite store', () => {
  function buildStore(name: string): { env: Record<string, string>; data: string; database: DatabaseSync } {
    const { env, data } = dataHome(name);
    const database = createDatabase(join(data, 'opencode.db'));
    database.prepare('INSERT INTO project (id, worktree) VALUES (?, ?)').run('proj', '/work/app');
    addSession(database, { id: 'ses_1', title: 'Fix the flaky test', created: 1000 });
    addMessage(database, 'ses_1', 'msg_1', 1001, userInfo(1001), [text('why is it flaky?'), text('<file contents>', { synthetic: true }), { type: 'file', mime: 'text/plain', url: 'file:///etc/passwd' }]);
    addMessage(database, 'ses_1', 'msg_2', 1002, replyInfo(1002, 'msg_1'), [{ type: 'reasoning', text: 'hmm' }, { type: 'tool', tool: 'bash', state: { status: 'completed', output: 'TOOL' } }, text('A race in setup.')]);
    addSession(database, { id: 'ses_child', title: 'subagent', created: 1500, parent: 'ses_1' });
    addSession(database, { id: 'ses_bad', title: 'Damaged', created: 2000 });
    database.prepare("INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES ('msg_b', 'ses_bad', 2001, 2001, '{not json')").run();
    database.prepare("INSERT INTO session (id, project_id, slug, directory, title, version, time_created) VALUES ('ses_notime', 'proj', 's', '/x', 'No time', '1', NULL)").run();
    return { env, data, database };
  }

  it('lists, titles and reads a database without creating or changing a file, closed or live', async () => {
    const { env, data, database } = buildStore('sqlite');
    database.close();
    const before = filesUnder(data);
    expect(before).toEqual(['opencode.db']);
    const source = sourceFor(env);
    expect(await source.listSessions()).toEqual([
      { id: 'opencode:ses_bad', createdAt: 2000, cwd: '/work/app' },
      { id: 'opencode:ses_1', createdAt: 1000, cwd: '/work/app' },
    ]);
    expect(source.problems()).toEqual([{ sessionId: 'opencode:ses_notime', file: 'opencode.db', error: expect.any(SourceReadError) }]);
    expect(await source.readTitles(['opencode:ses_1'])).toEqual([{ sessionId: 'opencode:ses_1', status: 'fulfilled', title: 'opencode · Fix the flaky test' }]);
    const surface = await source.readSurface('opencode:ses_1');
    expect(carried(surface.messages)).toEqual([
      ['user', 'why is it flaky?'],
      ['assistant', 'A race in setup.'],
    ]);
    await expect(source.readSurface('opencode:ses_bad')).rejects.toMatchObject({ code: 'SOURCE_SESSION_CORRUPT' });
    await expect(source.readSurface('opencode:ses_child')).rejects.toMatchObject({ code: 'SOURCE_SESSION_NOT_FOUND' });
    expect(filesUnder(data)).toEqual(before);

    // opencode running: its -wal and -shm are there, and the newest turn is only in the WAL.
    const live = new DatabaseSync(join(data, 'opencode.db'));
    addMessage(live, 'ses_1', 'msg_3', 1003, userInfo(1003), [text('and the fix?')]);
    const running = filesUnder(data);
    expect(running).toEqual(['opencode.db', 'opencode.db-shm', 'opencode.db-wal']);
    expect(carried((await sourceFor(env).readSurface('opencode:ses_1')).messages).at(-1)).toEqual(['user', 'and the fix?']);
    expect(filesUnder(data)).toEqual(running);
    live.close();
  });

  it('reads one session once from both stores, the newer copy winning', async () => {
    const { env, data, database } = buildStore('both');
    addSession(database, { id: 'ses_tree', title: 'Migrated', created: 500, updated: 900 });
    addMessage(database, 'ses_tree', 'msg_t', 501, userInfo(501), [text('from the database')]);
    database.close();
    const tree = join(data, 'storage');
    mkdirSync(join(tree, 'session', 'proj'), { recursive: true });
    mkdirSync(join(tree, 'message', 'ses_tree'), { recursive: true });
    mkdirSync(join(tree, 'message', 'ses_old'), { recursive: true });
    mkdirSync(join(tree, 'part', 'msg_o'), { recursive: true });
    writeFileSync(join(tree, 'session', 'proj', 'ses_tree.json'), JSON.stringify({ id: 'ses_tree', title: 'Migrated (stale)', directory: '/old', time: { created: 500, updated: 800 } }));
    writeFileSync(join(tree, 'session', 'proj', 'ses_old.json'), JSON.stringify({ id: 'ses_old', title: 'Only in the tree', projectID: 'proj', time: { created: 100, updated: 100 } }));
    mkdirSync(join(tree, 'project'), { recursive: true });
    writeFileSync(join(tree, 'project', 'proj.json'), JSON.stringify({ id: 'proj', worktree: '/work/tree' }));
    writeFileSync(join(tree, 'message', 'ses_old', 'msg_o.json'), JSON.stringify({ id: 'msg_o', role: 'user', time: { created: 101 } }));
    writeFileSync(join(tree, 'part', 'msg_o', 'prt_1.json'), JSON.stringify({ id: 'prt_1', type: 'text', text: 'from the tree' }));
    writeFileSync(join(tree, 'session', 'proj', 'ses_broken.json'), '{"id":');
    const source = sourceFor(env);
    const ids = (await source.listSessions()).map((header) => [header.id, header.cwd]);
    expect(ids).toEqual([
      ['opencode:ses_bad', '/work/app'],
      ['opencode:ses_1', '/work/app'],
      ['opencode:ses_tree', '/work/app'],
      ['opencode:ses_old', '/work/tree'],
    ]);
    expect(source.problems().map((problem) => [problem.file, problem.error.code])).toEqual([
      ['opencode.db', 'SOURCE_SESSION_CORRUPT'],
      ['storage/session/proj/ses_broken.json', 'SOURCE_SESSION_CORRUPT'],
    ]);
    expect(carried((await source.readSurface('opencode:ses_tree')).messages)).toEqual([['user', 'from the database']]);
    expect(carried((await source.readSurface('opencode:ses_old')).messages)).toEqual([['user', 'from the tree']]);
    const stamps = await source.changeStamps();
    expect([...stamps.keys()].sort()).toEqual(['opencode:ses_1', 'opencode:ses_bad', 'opencode:ses_old', 'opencode:ses_tree']);
  });

  it('refuses a session over its limits and a database that is not opencode with codes', async () => {
    const { env, data, database } = buildStore('limits');
    database.close();
    const small = opencodeSource({ environment: { home: scratch, env }, limits: { maxRows: 3, maxBytes: 1 << 20 } });
    await expect(small.readSurface('opencode:ses_1')).rejects.toMatchObject({ code: 'SOURCE_SESSION_TOO_LARGE' });
    writeFileSync(join(data, 'opencode-beta.db'), 'not a database at all, just text');
    const source = sourceFor(env);
    expect(await source.listSessions()).toHaveLength(2);
    expect(source.problems().map((problem) => [problem.file, problem.error.code])).toEqual([
      ['opencode-beta.db', 'SOURCE_SESSION_UNSUPPORTED'],
      ['opencode.db', 'SOURCE_SESSION_CORRUPT'],
    ]);
  });

  it.each([
    ['a view', (database: DatabaseSync) => database.exec('ALTER TABLE session RENAME TO session_rows; CREATE VIEW session AS SELECT * FROM session_rows;')],
    ['a virtual table', (database: DatabaseSync) => database.exec('DROP TABLE session; CREATE VIRTUAL TABLE session USING fts5(id, title, directory, project_id, parent_id, time_created, time_updated, revert);')],
  ])('reads only real tables (#37): `session` as %s refuses the database with a code, never computing it; the tree still lists', async (kind, replace) => {
    const { env, data, database } = buildStore(`session-${kind.replaceAll(' ', '-')}`);
    replace(database);
    database.close();
    writeJsonFiles(join(data, 'storage'), { 'session/proj/ses_tree.json': treeSession('ses_tree') });
    const source = sourceFor(env);
    expect((await source.listSessions()).map((header) => header.id)).toEqual(['opencode:ses_tree']);
    expect(source.problems().map((problem) => [problem.file, problem.error.code, problem.error.message])).toEqual([
      ['opencode.db', 'SOURCE_SESSION_UNSUPPORTED', `opencode.db: \`session\` is ${kind}, not a table: sessref reads only opencode's own tables`],
    ]);
  });

  it('reads only real tables (#37): `message` or `part` as a view refuses the session with a code', async () => {
    for (const table of ['message', 'part']) {
      const { env, database } = buildStore(`${table}-view`);
      database.exec(`ALTER TABLE ${table} RENAME TO ${table}_rows; CREATE VIEW ${table} AS SELECT * FROM ${table}_rows;`);
      database.close();
      const source = sourceFor(env);
      await source.listSessions();
      await expect(source.readSurface('opencode:ses_1')).rejects.toMatchObject({ code: 'SOURCE_SESSION_UNSUPPORTED', message: expect.stringContaining(`\`${table}\` is a view, not a table`) as unknown });
    }
  });

  it('an endless view in place of `session` or `project` never stops a listing (#37; in a child process, since node:sqlite blocks the one it runs in)', () => {
    const endless = (columns: string) => `WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) SELECT ${columns} FROM n WHERE x < 0`;
    const cases = {
      session: `ALTER TABLE session RENAME TO session_rows; CREATE VIEW session AS ${endless("'ses_' || x AS id, 't' AS title, '/d' AS directory, 'proj' AS project_id, NULL AS parent_id, x AS time_created, x AS time_updated, NULL AS revert")};`,
      project: `DROP TABLE project; CREATE VIEW project AS ${endless("'proj' AS id, '/w' AS worktree")};`,
    };
    for (const [table, sql] of Object.entries(cases)) {
      const { env, database } = buildStore(`endless-${table}`);
      database.exec(sql);
      database.close();
      // The package's build, as the CLI runs it (`npx tsc -b` first); the child is killed if the listing does not end.
      const script = `
        const { opencodeSource } = await import(${JSON.stringify(BUILT_SOURCES)});
        const source = opencodeSource({ environment: { home: '/nonexistent', env: ${JSON.stringify(env)} } });
        const headers = await source.listSessions();
        console.log(JSON.stringify({ headers: headers.map((header) => header.id), problems: source.problems().map((problem) => [problem.file, problem.error.code]) }));`;
      const child = spawnSync(process.execPath, ['--disable-warning=ExperimentalWarning', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 30_000 });
      expect(child.signal, `${table}: the listing did not end`).toBeNull();
      expect(child.stderr).toBe('');
      const answer = JSON.parse(child.stdout) as { headers: string[]; problems: string[][] };
      if (table === 'session') expect(answer).toEqual({ headers: [], problems: [['opencode.db', 'SOURCE_SESSION_UNSUPPORTED']] });
      // A project view is not read: sessions keep their own directories.
      else expect(answer).toEqual({ headers: ['opencode:ses_bad', 'opencode:ses_1'], problems: [['opencode.db', 'SOURCE_SESSION_CORRUPT']] });
    }
  });

  it('refuses the database with SOURCE_SESSION_UNSUPPORTED where node:sqlite is missing, still listing the tree', async () => {
    vi.resetModules();
    vi.doMock('node:sqlite', () => {
      throw new Error('No such built-in module: node:sqlite');
    });
    try {
      const { opencodeSource: isolated } = await import('../src/opencode/source.js');
      const { env, data, database } = buildStore('no-sqlite');
      database.close();
      mkdirSync(join(data, 'storage', 'session', 'p'), { recursive: true });
      writeFileSync(join(data, 'storage', 'session', 'p', 'ses_t.json'), JSON.stringify({ id: 'ses_t', title: 'Tree', time: { created: 1 } }));
      const source = isolated({ environment: { home: scratch, env } });
      expect((await source.listSessions()).map((header) => header.id)).toEqual(['opencode:ses_t']);
      expect(source.problems().map((problem) => problem.error.code)).toEqual(['SOURCE_SESSION_UNSUPPORTED']);
    } finally {
      vi.doUnmock('node:sqlite');
      vi.resetModules();
    }
  });
});

describe('properties of the fold', () => {
  const message = (id: string, role: string, created: number, parts: OpencodePart[], extra: Partial<OpencodeMessage> = {}): OpencodeMessage => ({
    id,
    role,
    created,
    summary: false,
    finished: role === 'assistant',
    errored: false,
    completed: false,
    parts,
    ...extra,
  });
  const textPart = (id: string, value: string, extra: Partial<OpencodePart> = {}): OpencodePart => ({ id, type: 'text', text: value, synthetic: false, ignored: false, ...extra });
  const turns = (count: number, prefix: string, from: number): OpencodeMessage[] =>
    Array.from({ length: count }, (_, index) =>
      message(`${prefix}${String(index).padStart(3, '0')}`, index % 2 === 0 ? 'user' : 'assistant', from + index, [textPart('p', `${prefix}-${index}`)]),
    );

  it('a revert drops the message it names and every later one (or that message\'s later parts)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 12 }), fc.nat(), fc.boolean(), (count, pick, byPart) => {
        const messages = turns(count, 'm', 0).map((item) => ({ ...item, parts: [textPart('p1', `${item.id}-a`), textPart('p2', `${item.id}-b`)] }));
        const at = pick % count;
        const named = messages[at]!;
        const items = carried(opencodeSurface(messages, byPart ? { messageId: named.id, partId: 'p2' } : { messageId: named.id }));
        const kept = messages.slice(0, at).map((item): Item => [item.role === 'user' ? 'user' : 'assistant', `${item.id}-a\n${item.id}-b`]);
        const partial = byPart && named.role === 'user' ? [['user', `${named.id}-a`] as Item] : byPart ? [['assistant', `${named.id}-a`] as Item] : [];
        expect(items).toEqual([...kept, ...partial]);
      }),
    );
  });

  it('a finished compaction keeps its summary as the checkpoint, the retained tail and what follows, nothing older', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 6 }), fc.integer({ min: 0, max: 6 }), fc.integer({ min: 0, max: 6 }), fc.boolean(), (older, tail, after, failed) => {
        const before = turns(older + tail, 'a', 0);
        const tailStart = before[older];
        const nail = message('n', 'user', 100, [{ id: 'c', type: 'compaction', synthetic: false, ignored: false, ...(tailStart === undefined ? {} : { tailStartId: tailStart.id }) }]);
        const summary = message('s', 'assistant', 101, [textPart('p', 'SUMMARY')], { summary: true, parentId: 'n', errored: failed });
        const later = turns(after, 'z', 200);
        const items = carried(opencodeSurface([...later, summary, nail, ...before], undefined));
        const plain = (list: OpencodeMessage[]): Item[] => list.map((item) => [item.role === 'user' ? 'user' : 'assistant', item.parts[0]!.text!]);
        // A failed summary compacts nothing; its text is no one's words.
        const expected = failed ? [...plain(before), ...plain(later)] : [['checkpoint', 'SUMMARY'] as Item, ...plain(before.slice(older)), ...plain(later)];
        expect(items).toEqual(expected);
      }),
    );
  });

  it('only own text of user messages and of replies that are over is carried', () => {
    const part = fc.record({
      type: fc.constantFrom('text', 'reasoning', 'tool', 'file', 'step-start', 'patch', 'agent', 'subtask'),
      text: fc.string({ maxLength: 3 }).map((value) => `t${value}`),
      synthetic: fc.boolean(),
      ignored: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom('user', 'assistant', 'system'), fc.array(part, { maxLength: 4 }), fc.boolean()), { minLength: 1, maxLength: 6 }), (specs) => {
        const messages = specs.map(([role, parts, finished], index) =>
          message(`m${index}`, role, index, parts.map((item, order) => ({ ...item, id: `p${order}` })), { finished }),
        );
        const expected = messages.flatMap((item, index): Item[] => {
          const own = item.parts.filter((p) => p.type === 'text' && !p.synthetic && !p.ignored).map((p) => p.text!);
          const over = item.finished || index < messages.length - 1;
          if (own.length === 0 || !(item.role === 'user' || (item.role === 'assistant' && over))) return [];
          return [[item.role === 'user' ? 'user' : 'assistant', own.join('\n')]];
        });
        expect(carried(opencodeSurface(messages, undefined))).toEqual(expected);
      }),
    );
  });
});
