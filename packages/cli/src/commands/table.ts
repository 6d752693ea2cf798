/** Every `sessref` command, as data: `sessref --help`, each command's help, flag checks and dispatch all come from here. */
import { DEFAULT_CANDIDATE_LIMIT, DEFAULT_MAX_REFERENCE_BYTES } from '@sessref/core/defaults';
import { AGENT_NAMES } from '@sessref/sources/agents';
import { defineCommand, type Command } from './command.js';
import { MAX_STDIN_BYTES, messageText } from './message.js';
import { DEFAULT_HOST, DEFAULT_PORT } from '../server/listen-defaults.js';
import { DEFAULT_PAGE_SIZE, OPENCODE_ENTRY, SETUP_COMMANDS } from '../mcp/setup.js';

// Each handler is loaded when its command runs: `sessref --help` or `uri` never loads the dsh host,
// and `list` never loads the inspector's server or the MCP SDK.
const sessions = () => import('./sessions.js');
const named = () => import('./sources.js');
const step = () => import('./step.js');

/** `serve` and `mcp`: keep the mirrors of `sessref remote` fresh while they run. */
const SYNC_EVERY_OPTION = {
  'sync-every': { description: 'sync every remote (sessref remote) at start, then every MIN minutes while running', default: 'off' },
} as const;

const SOURCES_OPTION = {
  sources: { description: `read sessions from these places only (comma-separated: ${['dsh', ...AGENT_NAMES].join(', ')})`, default: 'every one found' },
} as const;

const STEP_OPTIONS = {
  target: { description: 'the session the message is written in', required: true },
  'max-bytes': { description: "the UTF-8 budget of one cited session's snapshot", default: String(DEFAULT_MAX_REFERENCE_BYTES) },
  ...SOURCES_OPTION,
} as const;

/** How prepare's and send's help say MESSAGE may come from stdin. */
const STDIN_MESSAGE = `A MESSAGE of - is read from stdin (at most ${MAX_STDIN_BYTES / 1024 / 1024} MiB, trailing line breaks dropped), so a long one meets no shell argument limit.`;

export const COMMANDS: readonly Command[] = [
  defineCommand({
    name: 'list',
    summary: 'list sessions, or reference candidates for a target',
    description:
      'Without --target: every session in the root, newest first, filtered by QUERY (a case-insensitive substring of the id, cwd or title). ' +
      'With --target: reference candidates for that session, ranked exactly as the plugin ranks them (same cwd, no cwd, other cwd), with canonical mentions.',
    operands: [{ name: 'QUERY' }],
    options: {
      target: { description: 'list the reference candidates for this session' },
      limit: { description: 'keep the first N', default: `all; with --target, the plugin's candidate limit (${DEFAULT_CANDIDATE_LIMIT})` },
      ...SOURCES_OPTION,
    },
    json: 'the sessions, or the candidates, as an array',
    examples: ['sessref list', 'sessref list --target scratchpad', 'sessref list billing --target scratchpad --limit 5 --json', 'sessref list --sources claude-code,codex'],
    needs: 'engine',
    announcesRoot: true,
    engine: (flags, _env, { sourcesRead }) => sourcesRead(flags.sources),
    run: async ({ operands, flags, io, engine }) =>
      (await sessions()).listCommand(engine, io, { query: operands.QUERY ?? '', target: flags.target, limit: flags.limit, json: flags.json, sources: (await named()).parseSources(flags.sources) }),
  }),
  defineCommand({
    name: 'show',
    summary: 'show a session as a reference would carry it',
    description:
      "The session's header and current surface as a reference would project it: checkpoint, user and assistant text with sizes, and what fits the budget. " +
      'With --around, the excerpt a reference would carry instead: the first message holding PHRASE (case-insensitive) and its neighbours on both sides while the budget allows.',
    operands: [{ name: 'ID', needs: 'a session id or mention' }],
    options: {
      'max-bytes': { description: 'the budget to show the verdict under', default: String(DEFAULT_MAX_REFERENCE_BYTES) },
      around: { description: 'show the excerpt around the first message holding PHRASE instead of the newest messages' },
      ...SOURCES_OPTION,
    },
    json: 'the header, the projected conversation and what a reference carries (with --around, the excerpt and its messages)',
    examples: ['sessref show oauth-migration', 'sessref show research-log --json', 'sessref show research-log --around "Note 1000:"'],
    needs: 'engine',
    engine: (flags, _env, { budget, sourcesRead }) => ({ ...budget(flags['max-bytes']), ...sourcesRead(flags.sources) }),
    run: async ({ operands, flags, io, engine }) =>
      (await sessions()).showCommand(engine, io, { id: (await named()).sessionIdOf(operands.ID), json: flags.json, around: flags.around }),
  }),
  defineCommand({
    name: 'search',
    summary: 'find sessions by what their conversation says',
    description:
      'Sessions whose conversation contains QUERY, best match first: direct user text, assistant text and compaction checkpoints of the current surface ' +
      "(what a reference would carry), never tool output, reasoning, injected context or other sessions' snapshots. " +
      'QUERY is literal text, case and accents ignored: whole words match first, then the word being typed, then text inside a word; ' +
      'Chinese, Japanese, Korean and emoji match as written; quotes, OR, NEAR and * are plain text. ' +
      "Each match shows the session, its label, the matching message and a snippet; other agents' sessions are searched too. " +
      "sessref's own index lives in the cache directory ($SESSREF_CACHE_DIR, else ~/.cache/sessref), " +
      'is built by the first search (its progress on stderr when that is a terminal), then re-reads only what changed.',
    operands: [{ name: 'QUERY', needs: 'a QUERY' }],
    options: {
      target: { description: 'leave this session out' },
      limit: { description: 'keep the first N', default: String(DEFAULT_CANDIDATE_LIMIT) },
      ...SOURCES_OPTION,
    },
    json: "the plugin's content hits, each with the query's ranges in its snippet",
    examples: ['sessref search "price fetch"', 'sessref search refund --limit 5 --json', 'sessref search 結果 --sources dsh,codex'],
    needs: 'engine',
    engine: (flags, _env, { sourcesRead }) => sourcesRead(flags.sources),
    run: async ({ operands, flags, io, engine }) =>
      (await import('./search.js')).searchCommand(engine, io, { query: operands.QUERY, target: flags.target, limit: flags.limit, json: flags.json, sources: (await named()).parseSources(flags.sources) }),
  }),
  defineCommand({
    name: 'prepare',
    summary: 'preview the model-facing messages for a message with mentions',
    description:
      'Run MESSAGE through the real agent/pre-step path for the target and print the two model-facing messages and the retention facts. Writes nothing. ' +
      STDIN_MESSAGE,
    operands: [{ name: 'MESSAGE', needs: 'a MESSAGE' }],
    options: STEP_OPTIONS,
    json: 'the messages as they would enter history, the references and their sizes',
    examples: [
      'sessref prepare --target scratchpad "Summarize @[Fix flaky CI on main](dsh-session:ImZsYWt5LWNpIg)"',
      'sessref prepare --target scratchpad "$(sessref mention billing-schema) vs this" --max-bytes 2000',
      'sessref prepare --target scratchpad - < notes.md',
    ],
    needs: 'engine',
    engine: (flags, _env, { budget, sourcesRead }) => ({ ...budget(flags['max-bytes']), ...sourcesRead(flags.sources) }),
    run: async ({ operands, flags, io, engine }) =>
      (await step()).stepCommand(engine, io, { target: (await named()).sessionIdOf(flags.target), message: await messageText(operands.MESSAGE, io), json: flags.json, send: false }),
  }),
  defineCommand({
    name: 'send',
    summary: "prepare, then append to the target's log",
    description: `Like prepare, then append both messages durably to the target's log. Source sessions are only read, never written. ${STDIN_MESSAGE}`,
    operands: [{ name: 'MESSAGE', needs: 'a MESSAGE' }],
    options: STEP_OPTIONS,
    json: "prepare's, and the seqs appended at",
    examples: ['sessref send --target scratchpad "Recap $(sessref mention oauth-migration)"', 'git log -5 | sessref send --target scratchpad -'],
    needs: 'engine',
    writes: true,
    engine: (flags, env, { budget, lockWait, sourcesRead }) => ({ ...budget(flags['max-bytes']), ...lockWait(env), ...sourcesRead(flags.sources) }),
    run: async ({ operands, flags, io, engine }) =>
      (await step()).stepCommand(engine, io, { target: (await named()).sessionIdOf(flags.target), message: await messageText(operands.MESSAGE, io), json: flags.json, send: true }),
  }),
  defineCommand({
    name: 'new',
    summary: 'create a session',
    description: 'Create a session in the root and print its id. The root must exist (it may hold no sessions yet): no command creates one you name.',
    operands: [],
    options: {
      cwd: { description: "the session's working directory, an absolute path" },
      title: { description: "the session's title", default: 'Untitled <first 8 characters of the id>' },
    },
    json: 'the new session id',
    examples: ['sessref new --cwd /home/dev/webapp --title "Release notes"'],
    needs: 'engine',
    writes: true,
    run: async ({ flags, io, engine }) => (await import('./new.js')).newCommand(engine, io, { cwd: flags.cwd, title: flags.title, json: flags.json }),
  }),
  defineCommand({
    name: 'uri',
    summary: 'encode or decode a dsh-session: URI',
    synopsis: 'encode ID | sessref uri decode URI',
    description: 'Convert between a session id and its canonical dsh-session: URI. No root is needed.',
    operands: [
      { name: 'ACTION', needs: 'an action and a value' },
      { name: 'VALUE', needs: 'an action and a value' },
    ],
    options: {},
    json: 'the URI or the session id',
    examples: ['sessref uri encode flaky-ci', 'sessref uri decode dsh-session:ImZsYWt5LWNpIg'],
    run: async ({ operands, flags, io }) => (await import('./uri.js')).uriCommand(io, { action: operands.ACTION, value: operands.VALUE, json: flags.json }),
  }),
  defineCommand({
    name: 'mention',
    summary: "print a session's canonical mention",
    description:
      'Print the canonical @[label](dsh-session:…) mention; the label defaults to the title. Over a root without sessions the label is the id. ' +
      'With --around, the mention is followed by {around: "PHRASE"}, which prepare, send and the inspector read as a citation of the part of the session around PHRASE ' +
      '(dsh web too, with the plugin\'s excerpts option on; anywhere else it is plain text).',
    operands: [{ name: 'ID', needs: 'a session id or mention' }],
    options: {
      label: { description: 'the label to show', default: "the session's latest title, else its id" },
      around: { description: 'cite the part of the session around PHRASE instead of its newest messages' },
      ...SOURCES_OPTION,
    },
    json: 'the session id, label and mention',
    examples: ['sessref mention oauth-migration', 'sessref send --target scratchpad "what was decided? $(sessref mention research-log --around \'Note 1000:\')"'],
    needs: 'root',
    run: async ({ operands, flags, io, opened, tools }) => {
      const [{ mentionCommand }, { isForeignId, sessionIdOf }] = await Promise.all([import('./mention.js'), named()]);
      const options = { id: sessionIdOf(operands.ID), label: flags.label, json: flags.json, around: flags.around };
      // A label given, or a root without sessions to read one from (and no other agent's asked for): the id is the label.
      if (options.label !== undefined || (opened.state !== 'sessions' && !isForeignId(options.id))) return mentionCommand(undefined, io, options);
      return tools.withEngine(opened.root.path, io, { ...tools.sourcesRead(flags.sources), json: flags.json }, (engine) => mentionCommand(engine, io, options));
    },
  }),
  defineCommand({
    name: 'seed',
    summary: 'write a demo session root',
    description:
      'Write a demo root: sessions across cwds, titled and untitled, a compacted one, a long unicode one (4,000 messages) and one with hostile text. ' +
      "Without --root or SESSREF_ROOT it writes the demo root ./.sessref/sessions, creating it, and never dsh's own sessions. " +
      'A root you name must exist and be empty: a mistyped path is an error, never a new folder.',
    operands: [],
    options: { force: { description: 'add the demo sessions to a root that is not empty' } },
    examples: ['sessref seed', 'mkdir /tmp/demo && sessref seed --root /tmp/demo'],
    seedsDemo: () => true,
    needs: 'root',
    writes: true,
    run: async ({ flags, io, opened }) => (await import('./seed.js')).seedCommand(opened, io, { force: flags.force }),
  }),
  defineCommand({
    name: 'remote',
    summary: "mirror other machines' sessions over ssh, read-only",
    synopsis: 'add NAME [USER@]HOST | list | sync [NAME] | remove NAME',
    description:
      "Other machines whose dsh and agents' sessions are read beside this machine's. add records a remote and syncs it; sync pulls dsh's and each agent's session folders " +
      "(never its credentials) with the system's rsync over ssh into a private mirror in sessref's cache directory, moving only what changed; " +
      'nothing on the remote is ever written, deleted or locked, and links are never followed. ' +
      "Its sessions then list, search and cite like this machine's, their ids starting NAME/ and their labels naming the host; none is ever a target. " +
      'list shows each remote and the age of its last sync; a host that cannot be reached keeps its last mirror, read as it was. remove forgets a remote and deletes its mirror. ' +
      'ssh runs with BatchMode (no prompt), no agent or X11 forwarding and no terminal; host keys are checked as your ssh config says. ' +
      'SESSREF_REMOTE_MAX_BYTES bounds what one remote may hold (default 4 GiB); a file over 1 GiB is left out.',
    operands: [{ name: 'ACTION', needs: 'an action: add, list, sync or remove' }, { name: 'NAME' }, { name: 'HOST' }],
    options: { 'ssh-option': { description: 'an ssh_config option for this remote, passed as ssh -o OPT (add only; may be given again)' } },
    json: 'the remotes with their last sync, or what each sync pulled',
    examples: ['sessref remote add devbox dev@devbox.example --ssh-option Port=2222', 'sessref remote sync', 'sessref remote list --json', 'sessref remote remove devbox'],
    run: async ({ operands, flags, io }) =>
      (await import('./remote.js')).remoteCommand(io, { action: operands.ACTION, name: operands.NAME, destination: operands.HOST, sshOptions: flags['ssh-option'] ?? [], json: flags.json }),
  }),
  defineCommand({
    name: 'serve',
    summary: 'serve the web inspector',
    description:
      'Serve the web inspector (composer with @-mentions and a preview of what the model sees). Prints the URL with its token. ' +
      '--seed-if-empty (what npm start passes) serves the demo root ./.sessref/sessions unless --root or SESSREF_ROOT names another, ' +
      'and writes the demo sessions into the demo root while it is missing or empty. A root you name is served as it is, never seeded; ' +
      'a missing one is an error.',
    operands: [],
    options: {
      port: { description: 'the port; 0 picks a free one', default: String(DEFAULT_PORT) },
      host: { description: 'the address to listen on', default: DEFAULT_HOST },
      'seed-if-empty': { description: 'serve the demo root, seeding it while missing or empty' },
      ...SOURCES_OPTION,
      ...SYNC_EVERY_OPTION,
    },
    examples: ['sessref serve --port 7317', 'npm start -- --port 0'],
    seedsDemo: (flags) => flags['seed-if-empty'] === true,
    needs: 'root',
    longLived: true,
    announcesRoot: true,
    run: async ({ flags, io, opened, tools: { lockWait, indexWait, sourcesRead } }) =>
      (await import('./serve.js')).serveCommand(
        {
          root: opened.root.path,
          host: flags.host ?? DEFAULT_HOST,
          port: flags.port ?? DEFAULT_PORT,
          seedFirst: opened.demoToSeed,
          ...lockWait(io.env),
          ...indexWait(io.env),
          ...sourcesRead(flags.sources),
          ...(flags['sync-every'] === undefined ? {} : { syncEveryMinutes: flags['sync-every'] }),
        },
        io,
      ),
  }),
  defineCommand({
    name: 'mcp',
    summary: 'serve sessions to Claude Code, Gemini CLI, VS Code, opencode (MCP, stdio)',
    description:
      'A stdio MCP server over the sessions the CLI reads (the root and other agents\' homes). Its prompt `ref` (arguments session, session2, session3) ' +
      'inserts the same bounded, untrusted snapshot a dsh message citing those sessions gets; the user picks it (a slash command), never the model. ' +
      'Its optional argument around cites the part of each session around a phrase instead of its newest messages (completing with phrases content search finds). ' +
      'Arguments complete by title, id and content; a pasted mention or dsh-session: URI works too. No tools. ' +
      '--resources also lists every session as a resource, which the model can read too: every client that reads resources gives its model tools for them. ' +
      `Add it with one of the commands below; opencode: put ${OPENCODE_ENTRY} under "mcp" in opencode.json.`,
    operands: [],
    options: {
      'max-bytes': STEP_OPTIONS['max-bytes'],
      resources: { description: 'also serve every session as a resource (the model can read these too)' },
      limit: { description: 'resources per resources/list page', default: String(DEFAULT_PAGE_SIZE) },
      ...SOURCES_OPTION,
      ...SYNC_EVERY_OPTION,
    },
    examples: [...SETUP_COMMANDS, 'sessref mcp --resources --sources dsh,claude-code'],
    needs: 'root',
    longLived: true,
    run: async ({ flags, io, opened, tools: { budget, sourcesRead } }) =>
      (await import('../mcp/server.js')).mcpCommand(
        {
          engine: { root: opened.root.path, ...budget(flags['max-bytes']), ...sourcesRead(flags.sources) },
          resources: flags.resources,
          pageSize: flags.limit ?? DEFAULT_PAGE_SIZE,
          ...(flags['sync-every'] === undefined ? {} : { syncEveryMinutes: flags['sync-every'] }),
        },
        io.stderr,
      ),
  }),
];
