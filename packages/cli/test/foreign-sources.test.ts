/**
 * Other agents' sessions as sources, end to end through the CLI: a home
 * folder holding one real transcript per agent at its default location
 * (Claude Code, Codex, Gemini CLI, opencode, Kilo, pi, Qwen Code, Copilot CLI, Cline, Factory Droid and Continue samples from `../shared`, copied into a
 * temporary home, never into the repository; an OpenClaw database built here, as `../shared` holds none) beside a seeded dsh root.
 * `list` names each with its source and mention, `show` gives its
 * conversation, `prepare` frames it exactly as a dsh source is framed, and
 * nothing writes to it.
 */
import { copyFileSync, mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emptyRoot, expectFailure, hashTree, json, ok, removeTemps, requireBuild, sessref, tempDir, withoutRootLine } from './support';

const SAMPLES = fileURLToPath(new URL('../../../../shared/cross-harness-samples/', import.meta.url));
const CLAUDE_ID = 'ae4a77f8-aedd-4bc1-888f-c94edc91af04';
const CODEX_ID = '019b2ea4-aaaa-bbbb-cccc-58208e1f0000';
const GEMINI_ID = 'session-2026-01-16T18-34-3739ef95';
const PI_ID = '01a249d8-a5af-7223-99e0-32009016f9c6';
const PI_FILE = `2026-12-06T05-34-24-688Z_${PI_ID}.jsonl`;
const QWEN_ID = '8b417513-45f5-4f4f-8874-8b8b196520fa';
const COPILOT_ID = 'd5ef058c-73ff-4d5b-9d85-3bb30bc835e3';
const CLINE_ID = '1796536653507_cccr6';
const OPENCODE_ID = 'ses_db61e1770ffeybPhSJoD20QnA2';
const KILO_ID = 'ses_db60c47f3ffeGVxC6PViCoO5Qi';
const DROID_PARENT_ID = 'c4f76b19-7a19-473d-8ce2-e813f6e53328';
const DROID_CHILD_ID = 'f8073260-10f4-4ffe-a1ce-2fdf090de4ee';
const CONTINUE_ID = 'af4c5285-065b-4475-ae03-23c1547a7fcb';
const OPENCLAW_ID = 'sessref-openclaw-1';

interface Row {
  sessionId: string;
  source: string;
  title?: string;
  cwd?: string;
  mention: string;
}

let root: string;
let home: string;
/** sessref over the seeded root, with the agents' home as $HOME. */
const inHome = (args: readonly string[]) => [[...args, '--root', root], { env: { HOME: home } }] as const;
const listed = () => json<Row[]>(...inHome(['list']));

beforeAll(async () => {
  requireBuild();
  root = await emptyRoot();
  await ok(['seed', '--root', root]);
  home = await tempDir('sessref-agents-home-');
  const place = (sample: string, ...path: string[]) => {
    mkdirSync(join(home, ...path.slice(0, -1)), { recursive: true });
    copyFileSync(join(SAMPLES, sample), join(home, ...path));
  };
  place(`claude-code/spotter/${CLAUDE_ID}.jsonl`, '.claude', 'projects', '-work-app', `${CLAUDE_ID}.jsonl`);
  place('codex/agent-sessions/large.jsonl', '.codex', 'sessions', '2025', '12', '18', `rollout-2025-12-18T10-00-00-${CODEX_ID}.jsonl`);
  place('gemini-cli/agent-sessions/small.json', '.gemini', 'tmp', 'app', 'chats', `${GEMINI_ID}.json`);
  place('opencode/real-1.18.33/run-continue-summarize/.local/share/opencode/opencode.db', '.local', 'share', 'opencode', 'opencode.db');
  place('kilo/real-7.7.7/.local/share/kilo/kilo.db', '.local', 'share', 'kilo', 'kilo.db');
  place(`pi/real-0.73.1/.pi/agent/sessions/--home-user-project--/${PI_FILE}`, '.pi', 'agent', 'sessions', '--home-user-project--', PI_FILE);
  place(`qwen-code/real-0.24.4/.qwen/projects/-home-user-project/chats/${QWEN_ID}.jsonl`, '.qwen', 'projects', '-home-user-project', 'chats', `${QWEN_ID}.jsonl`);
  for (const file of ['events.jsonl', 'workspace.yaml']) place(`copilot/real-1.0.102/.copilot/session-state/${COPILOT_ID}/${file}`, '.copilot', 'session-state', COPILOT_ID, file);
  for (const file of ['json', 'messages.json', 'compaction.json']) place(`cline/real-3.0.65/.cline/data/sessions/${CLINE_ID}/${CLINE_ID}.${file}`, '.cline', 'data', 'sessions', CLINE_ID, `${CLINE_ID}.${file}`);
  for (const id of [DROID_PARENT_ID, DROID_CHILD_ID]) place(`factory-droid/real-0.225.2/.factory/sessions/-home-user-project/${id}.jsonl`, '.factory', 'sessions', '-home-user-project', `${id}.jsonl`);
  for (const file of [`${CONTINUE_ID}.json`, 'sessions.json']) place(`continue/real-1.5.47-print/.continue/sessions/${file}`, '.continue', 'sessions', file);
  placeOpenclaw(home);
});

/**
 * OpenClaw's main agent database at its default place, with the tables its
 * reader reads (2026.9.6's columns, fewer of them) and one session shaped as
 * the real CLI wrote it in `npm run test:agents`: two turns, a compaction
 * keeping the second reply, a third turn.
 */
function placeOpenclaw(home: string): void {
  const path = join(home, '.openclaw', 'agents', 'main', 'agent', 'openclaw-agent.sqlite');
  mkdirSync(join(path, '..'), { recursive: true });
  const database = new DatabaseSync(path);
  database.exec(`
    CREATE TABLE session_nodes (session_key TEXT PRIMARY KEY, current_session_id TEXT NOT NULL, label TEXT, display_name TEXT) STRICT;
    CREATE TABLE session_windows (session_id TEXT PRIMARY KEY, session_key TEXT NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, display_name TEXT) STRICT;
    CREATE TABLE transcript_events (session_id TEXT NOT NULL, seq INTEGER NOT NULL, event_json TEXT, created_at INTEGER NOT NULL, event_zstd BLOB, event_utf8_bytes INTEGER, PRIMARY KEY (session_id, seq)) STRICT;`);
  const key = `agent:main:explicit:${OPENCLAW_ID}`;
  database.prepare('INSERT INTO session_nodes VALUES (?, ?, NULL, NULL)').run(key, OPENCLAW_ID);
  database.prepare('INSERT INTO session_windows VALUES (?, ?, 1, 1, NULL)').run(OPENCLAW_ID, key);
  const timestamp = '2026-12-06T21:10:15.724Z';
  const message = (id: string, parentId: string, role: string, text: string) => ({ type: 'message', id, parentId, timestamp, message: role === 'user' ? { role, content: text } : { role, content: [{ type: 'text', text }] } });
  const events = [
    { type: 'session', version: 4, id: OPENCLAW_ID, timestamp, cwd: '/home/user/.openclaw/workspace' },
    message('u1', '', 'user', 'first prompt: say hi'),
    message('a1', 'u1', 'assistant', 'Hello from the fake model. (request 1)'),
    message('u2', 'a1', 'user', 'second prompt: thanks'),
    message('a2', 'u2', 'assistant', 'Hello from the fake model. (request 2)'),
    { type: 'compaction', id: 'c1', parentId: 'a2', timestamp, summary: 'Hello from the fake model. (request 3)', firstKeptEntryId: 'a2' },
    message('u3', 'c1', 'user', 'third prompt after compaction'),
    message('a3', 'u3', 'assistant', 'Hello from the fake model. (request 4)'),
  ];
  const insert = database.prepare('INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES (?, ?, ?, 1)');
  events.forEach((event, seq) => insert.run(OPENCLAW_ID, seq, JSON.stringify(event)));
  database.close();
}

afterAll(removeTemps);

describe("other agents' sessions", () => {
  it("are listed after the root's own, each with its source and canonical mention; the first stderr line names the homes read", async () => {
    const result = await sessref(...inHome(['list', '--json']));
    expect(result.code).toBe(0);
    const header = JSON.parse(result.stderr.split('\n')[0]!) as { sources: { name: string; home: string }[] };
    expect(header.sources).toEqual([
      { name: 'claude-code', home: join(home, '.claude', 'projects') },
      { name: 'codex', home: join(home, '.codex') },
      { name: 'gemini-cli', home: join(home, '.gemini') },
      { name: 'opencode', home: join(home, '.local', 'share', 'opencode') },
      { name: 'kilo', home: join(home, '.local', 'share', 'kilo') },
      { name: 'pi', home: join(home, '.pi', 'agent', 'sessions') },
      { name: 'qwen-code', home: join(home, '.qwen', 'projects') },
      { name: 'copilot', home: join(home, '.copilot', 'session-state') },
      { name: 'cline', home: join(home, '.cline', 'data', 'sessions') },
      { name: 'factory-droid', home: join(home, '.factory', 'sessions') },
      { name: 'continue', home: join(home, '.continue', 'sessions') },
      { name: 'openclaw', home: join(home, '.openclaw', 'agents') },
    ]);
    const rows = JSON.parse(result.stdout) as Row[];
    const foreign = rows.filter((row) => row.source !== 'dsh');
    expect(rows.slice(0, rows.length - foreign.length).every((row) => row.source === 'dsh')).toBe(true);
    expect(foreign.map((row) => [row.source, row.sessionId])).toEqual([
      ['claude-code', `claude-code:${CLAUDE_ID}`],
      ['codex', `codex:${CODEX_ID}`],
      ['gemini-cli', `gemini-cli:${GEMINI_ID}`],
      ['opencode', `opencode:${OPENCODE_ID}`],
      ['kilo', `kilo:${KILO_ID}`],
      ['pi', `pi:${PI_ID}`],
      ['qwen-code', `qwen-code:${QWEN_ID}`],
      ['copilot', `copilot:${COPILOT_ID}`],
      ['cline', `cline:${CLINE_ID}`],
      // The session /compress started, then the one it compressed: droid lets the user go back to either.
      ['factory-droid', `factory-droid:${DROID_CHILD_ID}`],
      ['factory-droid', `factory-droid:${DROID_PARENT_ID}`],
      ['continue', `continue:${CONTINUE_ID}`],
      ['openclaw', `openclaw:${OPENCLAW_ID}`],
    ]);
    expect(foreign.find((row) => row.source === 'codex')).toMatchObject({ title: 'Codex · Start', cwd: '/tmp/large' });
    expect(foreign.find((row) => row.source === 'opencode')).toMatchObject({ title: 'opencode · Hello from the fake model. (request 1)', cwd: '/home/user/project' });
    // Kilo kept its placeholder title: the first prompt names the session.
    expect(foreign.find((row) => row.source === 'kilo')).toMatchObject({ title: 'Kilo · first prompt: say hi', cwd: '/home/user/project' });
    expect(foreign.find((row) => row.source === 'pi')).toMatchObject({ title: 'pi · Fake scouting session', cwd: '/home/user/project' });
    expect(foreign.find((row) => row.source === 'qwen-code')).toMatchObject({ title: 'Qwen Code · first prompt: say hi', cwd: '/home/user/project' });
    expect(foreign.find((row) => row.source === 'copilot')).toMatchObject({ title: 'Copilot CLI · first prompt: say hi', cwd: '/home/user/project' });
    expect(foreign.find((row) => row.source === 'cline')).toMatchObject({ title: 'Cline · first prompt: say hi', cwd: '/home/user/project' });
    expect(foreign.find((row) => row.sessionId === `factory-droid:${DROID_PARENT_ID}`)).toMatchObject({ title: 'Factory Droid · first prompt: say hi', cwd: '/home/user/project' });
    // Continue's headless runs keep the placeholder title: the first prompt names the session.
    expect(foreign.find((row) => row.source === 'continue')).toMatchObject({ title: 'Continue · first prompt: say hi', cwd: '/home/user/project' });
    // OpenClaw's session has no name of its own: its first prompt names it.
    expect(foreign.find((row) => row.source === 'openclaw')).toMatchObject({ title: 'OpenClaw · first prompt: say hi', cwd: '/home/user/.openclaw/workspace' });
    for (const row of foreign) expect(row.mention).toMatch(/^@\[(Claude Code|Codex|Gemini CLI|opencode|Kilo|pi|Qwen Code|Copilot CLI|Cline|Factory Droid|Continue|OpenClaw) · .+\]\(dsh-session:[A-Za-z0-9_-]+\)$/);
  });

  it('--sources narrows the places read', async () => {
    const rows = await json<Row[]>(...inHome(['list', '--sources', 'codex']));
    expect(rows.map((row) => row.source)).toEqual(['codex']);
    expect(expectFailure(await sessref(...inHome(['list', '--sources', 'cursor'])), 1, 'USAGE')).toMatch(/--sources takes/);
  });

  it("mention labels each one as list does, reading that agent's sessions alone", async () => {
    for (const row of (await listed()).filter((listedRow) => listedRow.source !== 'dsh')) {
      const cache = await tempDir('sessref-mention-cache-');
      const mentioned = await sessref(['mention', row.sessionId, '--root', root], { env: { HOME: home, SESSREF_CACHE_DIR: cache } });
      expect(mentioned.stdout.trimEnd()).toBe(row.mention);
      // What the fresh process kept of what it read: that agent's listing only, no other agent's and nothing of the root.
      expect(readdirSync(cache).filter((file) => !file.startsWith(`listing-${row.source}-`))).toEqual([]);
    }
  });

  it("show gives each one's conversation by id or by mention", async () => {
    const codex = (await listed()).find((row) => row.source === 'codex')!;
    const shown = async (idOrMention: string) =>
      (await json<{ conversation: { role: string; text: string; checkpoint: boolean }[] }>(...inHome(['show', idOrMention]))).conversation;
    const codexConversation = await shown(codex.mention);
    expect(codexConversation.map((item) => [item.role, item.text])).toEqual([
      ['user', 'Start'],
      ['assistant', 'Acknowledged.'],
      ['assistant', 'Captured multiline output.'],
      ...[1, 2, 3, 4, 5].flatMap((step) => [
        ['user', `Step ${step}`],
        ['assistant', 'Ok'],
      ]),
    ]);
    expect(await shown(codex.sessionId)).toEqual(codexConversation);
    expect((await shown(`gemini-cli:${GEMINI_ID}`)).map((item) => [item.role, item.text])).toEqual([
      ['user', 'Hello'],
      ['assistant', 'Hi!'],
    ]);
    // opencode's filterCompacted, and Kilo's (the same reader): the summary answering the latest compaction
    // (the fake model's reply number `summary`), the prompt after it and its answer.
    const summaryThenThirdPrompt = (summary: number) => [
      ['user', true, `Hello from the fake model. (request ${summary})`],
      ['user', false, 'third prompt after compaction'],
      ['assistant', false, `Hello from the fake model. (request ${summary + 1})`],
    ];
    const compacted = async (sessionId: string) => (await shown(sessionId)).map((item) => [item.role, item.checkpoint, item.text]);
    expect(await compacted(`opencode:${OPENCODE_ID}`)).toEqual(summaryThenThirdPrompt(5));
    expect(await compacted(`kilo:${KILO_ID}`)).toEqual(summaryThenThirdPrompt(4));
    // pi's own rule: the latest compaction's summary, the entries it kept, then what followed.
    expect((await shown(`pi:${PI_ID}`)).map((item) => [item.role, item.checkpoint, item.text])).toEqual([
      ['user', true, 'Hello from the fake model. (request 4)'],
      ['user', false, 'second prompt: thanks'],
      ['assistant', false, 'Hello from the fake model. (request 3)'],
      ['user', false, 'third prompt after compaction'],
      ['assistant', false, 'Hello from the fake model. (request 5)'],
    ]);
    // Qwen Code's own rule: the latest chat_compression's history (its summary) replaces everything before it.
    expect((await shown(`qwen-code:${QWEN_ID}`)).map((item) => [item.role, item.checkpoint, item.text])).toEqual([
      ['user', true, 'Hello from the fake model. (request 6)'],
      ['user', false, 'third prompt after compaction'],
      ['assistant', false, 'Hello from the fake model. (request 7)'],
    ]);
    // Copilot CLI's: the latest applied compaction's summary, then what followed it.
    expect((await shown(`copilot:${COPILOT_ID}`)).map((item) => [item.role, item.checkpoint, item.text])).toEqual([
      ['user', true, 'Hello from the fake model. (request 4)'],
      ['user', false, 'third prompt after compaction'],
      ['assistant', false, 'Hello from the fake model. (request 5)'],
    ]);
    // Cline's: the compaction sidecar's summary and kept tail (its prefix hash matches), then the transcript after it.
    expect((await shown(`cline:${CLINE_ID}`)).map((item) => [item.role, item.checkpoint, item.text])).toEqual([
      ['user', true, 'Hello from the fake model. (request 4)\n\n## Files\nRead:\n- none\nModified:\n- none'],
      ['assistant', false, 'Hello from the fake model. (request 2)'],
      ['user', false, 'second prompt: thanks'],
      ['assistant', false, 'Hello from the fake model. (request 3)'],
      ['user', false, 'third prompt after compaction'],
      ['assistant', false, 'Hello from the fake model. (request 5)'],
    ]);
    // Factory Droid's: the child /compress started is its compaction_state summary, then its own turn; injected context- reminders never.
    expect((await shown(`factory-droid:${DROID_CHILD_ID}`)).map((item) => [item.role, item.checkpoint, item.text])).toEqual([
      ['user', true, 'Hello from the fake model. (request 4)'],
      ['user', false, 'third prompt after compaction'],
      ['assistant', false, 'Hello from the fake model. (request 6)'],
    ]);
    // Continue's: a headless /compact saved nothing, so the whole history, as the next --resume sent it.
    expect((await shown(`continue:${CONTINUE_ID}`)).map((item) => [item.role, item.checkpoint, item.text])).toEqual([
      ['user', false, 'first prompt: say hi'],
      ['assistant', false, 'Hello from the fake model. (request 2)'],
      ['user', false, 'second prompt: thanks'],
      ['assistant', false, 'Hello from the fake model. (request 3)'],
      ['user', false, 'third prompt after compaction'],
      ['assistant', false, 'Hello from the fake model. (request 5)'],
    ]);
    // OpenClaw's, pi's rule over its events: the compaction's summary, the reply it kept, then what followed.
    expect((await shown(`openclaw:${OPENCLAW_ID}`)).map((item) => [item.role, item.checkpoint, item.text])).toEqual([
      ['user', true, 'Hello from the fake model. (request 3)'],
      ['assistant', false, 'Hello from the fake model. (request 2)'],
      ['user', false, 'third prompt after compaction'],
      ['assistant', false, 'Hello from the fake model. (request 4)'],
    ]);
    const claude = await shown(`claude-code:${CLAUDE_ID}`);
    expect(claude[0]).toMatchObject({ role: 'user', checkpoint: true });
    expect(claude[1]).toMatchObject({ role: 'user', text: 'continue implementation' });
    expect(claude).toHaveLength(53);
  });

  it('prepare frames a foreign source exactly as a dsh one: same message layout, label naming the agent', async () => {
    const rows = await listed();
    const dshRow = rows.find((row) => row.sessionId === 'billing-schema')!;
    const codex = rows.find((row) => row.source === 'codex')!;
    const prepare = (mention: string) =>
      json<{ messages: { content: { text: string }[] }[]; references: { label: string; sessionId: string }[] }>(...inHome(['prepare', '--target', 'scratchpad', `see ${mention}`]));
    const [own, foreign] = [await prepare(dshRow.mention), await prepare(codex.mention)];
    expect(foreign.references.map((reference) => [reference.sessionId, reference.label])).toEqual([[codex.sessionId, 'Codex · Start']]);
    const text = (prepared: typeof own, index: number) => prepared.messages[index]!.content[0]!.text;
    expect(text(foreign, 0)).toBe('see @Codex · Start');
    // The context message's frame (everything but the data object) is the same as for a dsh source.
    const frame = (context: string) => context.replace(/\{"sessionId".*\}/s, '<data>');
    expect(frame(text(foreign, 1))).toBe(frame(text(own, 1)));
    expect(text(foreign, 1)).toContain('"conversation":[{"role":"user","text":"Start"}');
  });

  it('search finds the root\'s sessions and the other agents\' alike, CJK and emoji included, from one index', async () => {
    type Hit = { sessionId: string; snippet: string; ranges: [number, number][] };
    const found = async (query: string, ...args: string[]) => json<Hit[]>(...inHome(['search', query, ...args]));
    const marked = (hit: Hit) => hit.ranges.map(([start, end]) => hit.snippet.slice(start, end));
    const [codex] = await found('multiline output');
    expect(codex).toMatchObject({ sessionId: `codex:${CODEX_ID}`, label: 'Codex · Start', role: 'assistant', snippet: 'Captured multiline output.' });
    expect(marked(codex!)).toEqual(['multiline output']);
    // The demo's research log carries "結果は安定しています" and 😀: found inside unspaced text, with their spans.
    const cjk = await found('結果');
    expect(cjk.map((hit) => hit.sessionId)).toContain('research-log');
    expect(cjk.flatMap(marked).every((text) => text === '結果')).toBe(true);
    expect((await found('😀')).map((hit) => hit.sessionId)).toContain('research-log');
    // --sources narrows what is shown, as for list.
    expect(await found('結果', '--sources', 'codex')).toEqual([]);
    expect((await found('multiline output', '--sources', 'dsh')).map((hit) => hit.sessionId)).toEqual([]);
  });

  it('send refuses to write into another agent session, and nothing in the home changes', async () => {
    const before = await hashTree(home);
    expect(expectFailure(await sessref(...inHome(['send', '--target', `codex:${CODEX_ID}`, 'hello'])), 1, 'SESSION_WRITE_UNSUPPORTED')).toMatch(/this is a Codex session, read in place/);
    const codex = (await listed()).find((row) => row.source === 'codex')!;
    await ok(...inHome(['send', '--target', 'scratchpad', `see ${codex.mention}`]));
    expect(await hashTree(home)).toEqual(before);
  });
});

describe("an agent's folder that cannot be checked (#37)", () => {
  it('a symbolic-link loop at ~/.claude skips Claude Code with one note naming its folder; list, show and search answer as before', async () => {
    const loopHome = await tempDir('sessref-loop-home-');
    const day = join(loopHome, '.codex', 'sessions', '2025', '12', '18');
    mkdirSync(day, { recursive: true });
    copyFileSync(join(SAMPLES, 'codex/agent-sessions/large.jsonl'), join(day, `rollout-2025-12-18T10-00-00-${CODEX_ID}.jsonl`));
    symlinkSync(join(loopHome, '.claude'), join(loopHome, '.claude'));
    const run = (...args: string[]) => sessref([...args, '--root', root], { env: { HOME: loopHome } });
    const note = { note: { message: `Claude Code sessions skipped: ${join(loopHome, '.claude', 'projects')} cannot be read (ELOOP)` } };
    const notes = (stderr: string) => withoutRootLine(stderr).split('\n').filter((line) => line.includes('"note"')).map((line) => JSON.parse(line) as unknown);

    const list = await run('list', '--json');
    expect(list.code, list.stderr).toBe(0);
    expect(notes(list.stderr)).toEqual([note]);
    const rows = JSON.parse(list.stdout) as Row[];
    expect(rows.filter((row) => row.source !== 'dsh').map((row) => row.sessionId)).toEqual([`codex:${CODEX_ID}`]);
    expect(rows.some((row) => row.sessionId === 'billing-schema')).toBe(true);

    const show = await run('show', `codex:${CODEX_ID}`, '--json');
    expect(show.code, show.stderr).toBe(0);
    expect(notes(show.stderr)).toEqual([note]);

    const search = await run('search', 'multiline output', '--json');
    expect(search.code, search.stderr).toBe(0);
    expect((JSON.parse(search.stdout) as { sessionId: string }[]).map((hit) => hit.sessionId)).toEqual([`codex:${CODEX_ID}`]);
    expect(notes(search.stderr)).toEqual([note]);

    const text = await run('list');
    expect(text.code).toBe(0);
    expect(text.stderr).toContain(`sessref: note: Claude Code sessions skipped: ${join(loopHome, '.claude', 'projects')} cannot be read (ELOOP)`);
  });

  it('a Claude Code project folder that cannot be searched hides only its own sessions, with a warning naming it', async () => {
    const loopHome = await tempDir('sessref-loop-project-');
    const projects = join(loopHome, '.claude', 'projects');
    mkdirSync(join(projects, '-work-app'), { recursive: true });
    copyFileSync(join(SAMPLES, `claude-code/spotter/${CLAUDE_ID}.jsonl`), join(projects, '-work-app', `${CLAUDE_ID}.jsonl`));
    symlinkSync(join(projects, '-loop'), join(projects, '-loop'));
    const list = await sessref(['list', '--json', '--sources', 'claude-code', '--root', root], { env: { HOME: loopHome } });
    expect(list.code, list.stderr).toBe(0);
    const rows = JSON.parse(list.stdout) as (Row & { readError?: { code: string } })[];
    expect(rows.map((row) => [row.sessionId, row.readError?.code])).toEqual([
      [`claude-code:${CLAUDE_ID}`, undefined],
      ['claude-code:-loop/', 'SOURCE_SESSION_UNREADABLE'],
    ]);
    const warnings = withoutRootLine(list.stderr).split('\n').filter((line) => line.includes('"warning"'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('-loop/ cannot be searched (ELOOP): its Claude Code sessions are left out');

    // search warns the same way, once, and finds the sessions of the other projects.
    const search = await sessref(['search', 'spotter', '--json', '--sources', 'claude-code', '--root', root], { env: { HOME: loopHome } });
    expect(search.code, search.stderr).toBe(0);
    expect((JSON.parse(search.stdout) as { sessionId: string }[]).map((hit) => hit.sessionId)).toEqual([`claude-code:${CLAUDE_ID}`]);
    expect(withoutRootLine(search.stderr).split('\n').filter((line) => line.includes('"warning"')).map((line) => JSON.parse(line) as unknown)).toEqual([
      { warning: { code: 'SOURCE_SESSION_UNREADABLE', message: 'session "claude-code:-loop/": -loop/ cannot be searched (ELOOP): its Claude Code sessions are left out' } },
    ]);
    const text = await sessref(['search', 'spotter', '--sources', 'claude-code', '--root', root], { env: { HOME: loopHome, NO_COLOR: '1' } });
    expect(text.stderr.split('\n').filter((line) => line.startsWith('warning'))).toEqual(['warning SOURCE_SESSION_UNREADABLE: session "claude-code:-loop/": -loop/ cannot be searched (ELOOP): its Claude Code sessions are left out']);
  });
});
