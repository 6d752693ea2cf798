/**
 * The corpus's opencode and Kilo stores: one SQLite database each, written
 * through node:sqlite with the tables their readers query as opencode
 * 1.18.33 and Kilo 7.7.7 create them (the `project`, `session`, `message`
 * and `part` tables and their indexes, ../shared/formats/opencode-1.18.md),
 * a session's rows as those releases write them: a user message with its
 * text part, then assistant messages whose parts are steps, reasoning, a
 * completed tool call and the reply.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { prose } from '../lib/text.mjs';
import { cwdOf, EPOCH, iso, sessionClock } from './records.mjs';

const SCHEMA = `
CREATE TABLE \`project\` (
  \`id\` text PRIMARY KEY, \`worktree\` text NOT NULL, \`vcs\` text, \`name\` text, \`icon_url\` text, \`icon_url_override\` text, \`icon_color\` text,
  \`time_created\` integer NOT NULL, \`time_updated\` integer NOT NULL, \`time_initialized\` integer, \`sandboxes\` text NOT NULL, \`commands\` text
);
CREATE TABLE \`session\` (
  \`id\` text PRIMARY KEY, \`project_id\` text NOT NULL, \`workspace_id\` text, \`parent_id\` text, \`slug\` text NOT NULL, \`directory\` text NOT NULL, \`path\` text,
  \`title\` text NOT NULL, \`version\` text NOT NULL, \`share_url\` text, \`summary_additions\` integer, \`summary_deletions\` integer, \`summary_files\` integer,
  \`summary_diffs\` text, \`metadata\` text, \`cost\` real DEFAULT 0 NOT NULL, \`tokens_input\` integer DEFAULT 0 NOT NULL, \`tokens_output\` integer DEFAULT 0 NOT NULL,
  \`tokens_reasoning\` integer DEFAULT 0 NOT NULL, \`tokens_cache_read\` integer DEFAULT 0 NOT NULL, \`tokens_cache_write\` integer DEFAULT 0 NOT NULL,
  \`revert\` text, \`permission\` text, \`agent\` text, \`model\` text, \`time_created\` integer NOT NULL, \`time_updated\` integer NOT NULL,
  \`time_compacting\` integer, \`time_archived\` integer,
  CONSTRAINT \`fk_session_project_id_project_id_fk\` FOREIGN KEY (\`project_id\`) REFERENCES \`project\`(\`id\`) ON DELETE CASCADE
);
CREATE TABLE \`message\` (
  \`id\` text PRIMARY KEY, \`session_id\` text NOT NULL, \`time_created\` integer NOT NULL, \`time_updated\` integer NOT NULL, \`data\` text NOT NULL,
  CONSTRAINT \`fk_message_session_id_session_id_fk\` FOREIGN KEY (\`session_id\`) REFERENCES \`session\`(\`id\`) ON DELETE CASCADE
);
CREATE TABLE \`part\` (
  \`id\` text PRIMARY KEY, \`message_id\` text NOT NULL, \`session_id\` text NOT NULL, \`time_created\` integer NOT NULL, \`time_updated\` integer NOT NULL, \`data\` text NOT NULL,
  CONSTRAINT \`fk_part_message_id_message_id_fk\` FOREIGN KEY (\`message_id\`) REFERENCES \`message\`(\`id\`) ON DELETE CASCADE
);
CREATE INDEX \`message_session_time_created_id_idx\` ON \`message\` (\`session_id\`,\`time_created\`,\`id\`);
CREATE INDEX \`part_message_id_id_idx\` ON \`part\` (\`message_id\`,\`id\`);
CREATE INDEX \`part_session_idx\` ON \`part\` (\`session_id\`);
CREATE INDEX \`session_project_idx\` ON \`session\` (\`project_id\`);
CREATE INDEX \`session_workspace_idx\` ON \`session\` (\`workspace_id\`);
CREATE INDEX \`session_parent_idx\` ON \`session\` (\`parent_id\`);
`;

const TURNS = 3;
const PROJECTS = 50;
const MODEL = { providerID: 'anthropic', modelID: 'claude-sonnet-4-5' };
const TOKENS = { total: 1500, input: 1200, output: 300, reasoning: 0, cache: { write: 0, read: 0 } };

/** The statements one database is filled with. */
function statements(database) {
  const insert = (table, columns) => database.prepare(`INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`);
  return {
    project: insert('project', ['id', 'worktree', 'vcs', 'time_created', 'time_updated', 'sandboxes']),
    session: insert('session', ['id', 'project_id', 'slug', 'directory', 'path', 'title', 'version', 'permission', 'agent', 'model', 'time_created', 'time_updated']),
    touch: database.prepare('UPDATE session SET time_updated = ? WHERE id = ?'),
    message: insert('message', ['id', 'session_id', 'time_created', 'time_updated', 'data']),
    part: insert('part', ['id', 'message_id', 'session_id', 'time_created', 'time_updated', 'data']),
  };
}

const PERMISSION = JSON.stringify([{ permission: 'question', pattern: '*', action: 'deny' }]);
const SESSION_MODEL = JSON.stringify({ id: MODEL.modelID, providerID: MODEL.providerID, variant: 'default' });

/**
 * One session's rows, the session's first (its messages refer to it), its
 * update time moved on after them as opencode moves it. opencode's ids sort
 * by creation (a time prefix and a counter), which the readers' `ORDER BY id`
 * relies on: `nextId` gives them.
 */
function insertSession(insert, { n, next, nextId, store, title }) {
  const { agent, version, salt } = store;
  const clock = sessionClock(n);
  const cwd = cwdOf(n, PROJECTS);
  const sessionId = nextId('ses');
  insert.session.run(sessionId, `project${salt}${n % PROJECTS}`, `bench-${n}`, cwd, cwd.slice(1), title(clock.start), version, PERMISSION, agent, SESSION_MODEL, clock.start, clock.start);
  const message = (data) => {
    const id = nextId('msg');
    const time = clock.tickMs();
    insert.message.run(id, sessionId, time, time, JSON.stringify({ ...data, time: { created: time, completed: time + 900 } }));
    return id;
  };
  const part = (messageId, data) => {
    const time = clock.tickMs();
    insert.part.run(nextId('prt'), messageId, sessionId, time, time, JSON.stringify(data));
  };
  const reply = (parentID, finish) => message({ parentID, role: 'assistant', mode: agent, agent, path: { cwd, root: cwd }, cost: 0, tokens: TOKENS, ...MODEL, finish });
  for (let turn = 0; turn < TURNS; turn += 1) {
    const user = message({ role: 'user', agent, model: MODEL, summary: { diffs: [] } });
    part(user, { type: 'text', text: prose(next, 160) });
    const tool = reply(user, 'tool-calls');
    part(tool, { type: 'step-start' });
    part(tool, { type: 'reasoning', text: prose(next, 300), time: { start: clock.now(), end: clock.now() + 400 } });
    const state = { status: 'completed', input: { command: 'npm test', description: 'run the tests' }, output: prose(next, 900), metadata: { exit: 0, truncated: false }, title: 'run the tests', time: { start: clock.now(), end: clock.now() + 800 } };
    part(tool, { type: 'tool', tool: 'bash', callID: `call_${n}_${turn}`, state });
    part(tool, { type: 'step-finish', reason: 'tool-calls', tokens: TOKENS, cost: 0 });
    const answer = reply(user, 'stop');
    part(answer, { type: 'step-start' });
    part(answer, { type: 'text', text: prose(next, 500) });
    part(answer, { type: 'step-finish', reason: 'stop', tokens: TOKENS, cost: 0 });
  }
  insert.touch.run(clock.now(), sessionId);
}

/**
 * `count` sessions in a new database at `dataFolder/<file>`, in one
 * transaction; `titleOf(n, created)` gives session `n`'s stored title.
 */
function writeStore(files, store, count, next, titleOf) {
  const { dataFolder, file, salt } = store;
  const path = files.path(join(dataFolder, file));
  const database = new DatabaseSync(path);
  database.exec(SCHEMA);
  const insert = statements(database);
  let counter = 0;
  const nextId = (prefix) => `${prefix}_${(salt * 0x1000000000 + (counter += 1)).toString(16).padStart(12, '0')}Bench${salt}`;
  database.exec('BEGIN');
  for (let project = 0; project < Math.min(PROJECTS, count); project += 1) {
    insert.project.run(`project${salt}${project}`, cwdOf(project, PROJECTS), 'git', EPOCH, sessionClock(count).start, '[]');
  }
  for (let n = 0; n < count; n += 1) insertSession(insert, { n, next, nextId, store, title: (created) => titleOf(n, created) });
  database.exec('COMMIT');
  database.close();
  files.count(statSync(path).size);
}

/** opencode's placeholder until its title agent names the session (`createDefaultTitle`). */
const placeholder = (created) => `New session - ${iso(created)}`;

/** opencode: `~/.local/share/opencode/opencode.db`; four sessions in five titled by its title agent, the others left with the placeholder. */
export function writeOpencode(files, count, next) {
  const store = { dataFolder: '.local/share/opencode', file: 'opencode.db', version: '1.18.33', agent: 'build', salt: 10 };
  writeStore(files, store, count, next, (n, created) => (n % 5 === 4 ? placeholder(created) : prose(next, 30)));
}

/** Kilo: `~/.local/share/kilo/kilo.db`, opencode's store under its own name; Kilo's runs keep the placeholder title, so every label is read from the first prompt. */
export function writeKilo(files, count, next) {
  const store = { dataFolder: '.local/share/kilo', file: 'kilo.db', version: '7.7.7', agent: 'code', salt: 11 };
  writeStore(files, store, count, next, (n, created) => placeholder(created));
}
