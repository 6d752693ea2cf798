/**
 * `sessref mcp` in the real clients: Gemini CLI and Qwen Code headless
 * (`gemini -p "/ref --session=<id>"`, `qwen "/ref --session=<id>"`) and
 * Claude Code's TUI under tmux (`/mcp__sessref__ref <id>`), each set up with
 * the very command the CLI README gives (`claude mcp add …`, `gemini mcp add
 * …`, `qwen mcp add …`), run from a project
 * that has sessref installed, so the README's `npx --no-install sessref mcp` resolves to
 * the built CLI with no registry. The user's home holds a seeded dsh root at
 * dsh's default place and a transcript another real agent wrote in this run,
 * at that agent's default place. For each cited session the fake model must
 * receive, in the user's turn, exactly the context message `sessref prepare`
 * builds for a dsh message citing it, and be offered no tool that lists or
 * reads sessions, MCP resources or prompts. A control per client starts the
 * same server with `--resources` and the same check must then name the
 * resource readers the client offers its model.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import process from 'node:process';
import { REPO_ROOT } from '../../dsh-app/lib/install.mjs';
import { lastLines, run } from '../../dsh-app/lib/proc.mjs';
import { claudeEnv, expectStdout, geminiEnv, qwenSetup, step } from './agents.mjs';
import { binPath } from './install.mjs';
import { offeredTools, userTurns } from './fake-model.mjs';
import { poll, startTmux } from './tmux.mjs';

const CLI_README = join(REPO_ROOT, 'packages/cli/README.md');
const ROOT_README = join(REPO_ROOT, 'README.md');
const CLI_BIN = join(REPO_ROOT, 'packages/cli/bundle/bin.js');
/** The dsh session each client cites from the seeded demo root, and the one `prepare` targets to build the expected bytes. */
const DSH_SESSION = 'oauth-migration';
const PREPARE_TARGET = 'scratchpad';
/** Which other agent's session each client cites, in order of preference (its own earlier session only when no other ran). */
const FOREIGN_PREFERENCE = {
  'gemini-cli': ['claude-code', 'codex', 'gemini-cli'],
  'claude-code': ['codex', 'gemini-cli', 'claude-code'],
  'qwen-code': ['gemini-cli', 'claude-code', 'codex', 'qwen-code'],
};
/**
 * A tool the model could use to reach a session the user did not choose:
 * sessref's own (`mcp__sessref__…` in Claude Code, `…sessref…` in Gemini CLI
 * and Qwen Code), the clients' MCP resource readers (`ListMcpResourcesTool`,
 * `ReadMcpResourceTool`, `list_mcp_resources`, `read_mcp_resource`, …), or
 * anything that gets prompts.
 */
const SESSION_READING_TOOL = /sessref|mcp.?resource|resource.?tool|prompt/i;
/**
 * The clients' resource readers named anywhere in a request: Claude Code
 * announces deferred tools by name in a message (a `system` one in 2.1.332),
 * to be loaded through ToolSearch, not in `tools`.
 */
const RESOURCE_READER_MENTION = /(?:ListMcpResources|ReadMcpResource|list_mcp_resource|read_mcp_resource)\w*/g;

/** A check that failed: its message is the run's reason. */
export class McpFailure extends Error {}
const check = (condition, message) => { if (!condition) throw new McpFailure(message); };

/** The README's setup command for `client` (`claude`, `gemini` or `qwen`): its argv after the client's binary. */
function readmeSetup(client) {
  const lines = readFileSync(CLI_README, 'utf8').split('\n').filter((line) => line.startsWith(`${client} mcp add `));
  check(lines.length === 1, `packages/cli/README.md has ${lines.length} lines starting "${client} mcp add", expected one`);
  // The root README quotes Claude Code's (across a line break): it must be the same command.
  const root = readFileSync(ROOT_README, 'utf8').replace(/\s+/g, ' ');
  if (client === 'claude') check(root.includes(lines[0]), `README.md does not give the setup line packages/cli/README.md gives: ${lines[0]}`);
  return lines[0].split(' ').slice(1);
}

/** Make `work` a project with @sessref/cli installed (linked to this checkout), as a user's project is after `npm install @sessref/cli`. */
function installSessrefInto(work) {
  mkdirSync(join(work, 'node_modules', '@sessref'), { recursive: true });
  mkdirSync(join(work, 'node_modules', '.bin'), { recursive: true });
  symlinkSync(join(REPO_ROOT, 'packages', 'cli'), join(work, 'node_modules', '@sessref', 'cli'), 'dir');
  symlinkSync('../@sessref/cli/bin/sessref.js', join(work, 'node_modules', '.bin', 'sessref'));
  writeFileSync(join(work, 'package.json'), `${JSON.stringify({ name: 'mcp-user-project', private: true, dependencies: { '@sessref/cli': '*' } }, null, 2)}\n`);
}

/** sessref itself, as the test's own instrument, in the user's home. */
async function sessref(args, home) {
  const env = { PATH: process.env.PATH, HOME: home, NO_COLOR: '1', LANG: 'C.UTF-8' };
  const result = await run(process.execPath, [CLI_BIN, ...args], { cwd: home, env, timeoutMs: 60_000, label: `sessref ${args[0]}` });
  check(!result.timedOut && result.code === 0, `sessref ${args.join(' ')}: ${result.timedOut ? 'timed out' : `exit ${result.code}`}: ${lastLines(result.stderr)}`);
  return result.stdout;
}

/**
 * The user's home: the demo sessions seeded at ~/.dsh/sessions (where sessref
 * looks first when no root is named) and `foreign`'s transcript copied to the
 * same place under this home as under the agent's.
 */
async function userHome(dir, foreign) {
  const home = join(dir, 'home');
  mkdirSync(join(home, '.dsh', 'sessions'), { recursive: true });
  await sessref(['seed', '--root', join(home, '.dsh', 'sessions')], home);
  const target = join(home, relative(foreign.home, foreign.transcript));
  mkdirSync(dirname(target), { recursive: true });
  copyFileSync(foreign.transcript, target);
  return home;
}

/** What a dsh target gets for a message citing `sessionId`: `sessref prepare`'s context message, byte for byte. */
async function expectedSnapshot(home, sessionId) {
  const mention = (await sessref(['mention', sessionId], home)).trim();
  const preview = JSON.parse(await sessref(['prepare', '--json', '--target', PREPARE_TARGET, `see ${mention}`], home));
  const text = preview.messages?.[1]?.content?.[0]?.text;
  check(typeof text === 'string' && text.includes('<referenced-sessions>'), `sessref prepare gave no context message for ${sessionId}`);
  const shown = JSON.parse(await sessref(['show', sessionId, '--json'], home));
  const phrase = shown.conversation?.at(-1)?.text;
  check(typeof phrase === 'string' && phrase.length > 0, `sessref show ${sessionId} has no last message`);
  return { text, phrase };
}

/** The sessions a client cites: the seeded dsh one and another agent's, with what the model must receive for each. */
async function citations(home, foreign) {
  const out = [];
  for (const [kind, id] of [['dsh root', DSH_SESSION], [`${foreign.name} session`, foreign.id]]) {
    out.push({ kind, id, ...(await expectedSnapshot(home, id)) });
  }
  return out;
}

/**
 * Check the fake model's requests since `from`: one of them carries `cited`'s
 * snapshot in a user turn (and nowhere else), and none offers a session-reading
 * tool but the `builtIn` ones the client offers with no MCP server at all.
 * @returns {number} how many requests carried it
 */
function checkReceived(requests, api, cited, client, builtIn = []) {
  const mine = requests.filter((request) => request.api === api);
  check(mine.length > 0, `${client} sent the fake model no request for ${cited.kind} ${cited.id}`);
  const carrying = mine.filter((request) => userTurns(api, request.body).some((text) => text.includes(cited.delivered)));
  if (carrying.length === 0) {
    const partial = mine.some((request) => JSON.stringify(request.body).includes(JSON.stringify(cited.phrase).slice(1, -1)));
    throw new McpFailure(`no request to the fake model carried the exact snapshot of ${cited.kind} ${cited.id} in a user turn`
      + (partial ? ' (its last message did arrive: the bytes differ from sessref prepare\'s)' : ' (nor its last message)'));
  }
  for (const request of carrying) {
    check(request.body.system === undefined || !JSON.stringify(request.body.system).includes(JSON.stringify(cited.phrase).slice(1, -1)),
      `request ${request.n} put ${cited.kind} ${cited.id} in the system prompt`);
  }
  check(carrying.some((request) => userTurns(api, request.body).at(-1).includes(cited.delivered)), `the snapshot of ${cited.id} is not in the newest user turn`);
  const offending = sessionReadingTools(api, mine, [cited.delivered]).filter((name) => !builtIn.includes(name));
  check(offending.length === 0, `the model was offered tools that read sessions, resources or prompts: ${offending.join(', ')}`);
  return { carrying: carrying.length, tools: new Set(mine.flatMap((request) => offeredTools(api, request.body))).size };
}

/**
 * The session-reading tools any of `requests` offers the model: by name, or a
 * resource reader named anywhere in the request but inside `cited` (the
 * snapshots the user chose, whose content is whatever those sessions said).
 */
function sessionReadingTools(api, requests, cited = []) {
  const named = requests.flatMap((request) => offeredTools(api, request.body)).filter((name) => SESSION_READING_TOOL.test(name));
  const mentioned = requests.flatMap((request) => {
    const text = cited.reduce((body, snapshot) => body.split(JSON.stringify(snapshot).slice(1, -1)).join(''), JSON.stringify(request.body));
    return text.match(RESOURCE_READER_MENTION) ?? [];
  });
  return [...new Set([...named, ...mentioned])];
}

/** The session another agent wrote in this run that `client` cites. */
export function foreignSessionFor(client, sessions) {
  const name = FOREIGN_PREFERENCE[client].find((candidate) => sessions[candidate] !== undefined);
  return name === undefined ? undefined : { name, ...sessions[name] };
}

// ── Gemini CLI and Qwen Code, headless ───────────────────────────────────────
/**
 * The clients that run an MCP prompt as a headless prompt: Gemini CLI 0.61.0
 * and its fork Qwen Code 0.24.4, whose `McpPromptLoader` is the same. Each:
 * its binary's name in the README's setup line, the API its requests speak,
 * the project folder `mcp add` writes its settings into, its environment and
 * command on the fake model, how a headless prompt is given, and whether the
 * entry its `mcp add` wrote keeps npx from fetching a stranger's `sessref`.
 */
const HEADLESS = {
  'gemini-cli': {
    name: 'Gemini CLI', binary: 'gemini', api: 'gemini', settings: '.gemini',
    start: (home, modelUrl) => ({ env: geminiEnv(home, modelUrl).env, argv: [binPath('gemini-cli')] }),
    ask: (text) => ['-p', text],
    // Its `mcp add` drops every --flag, so the line sets npm's own refusal in the server's environment.
    refuses: (entry) => entry.env?.npm_config_yes === 'false',
  },
  'qwen-code': {
    name: 'Qwen Code', binary: 'qwen', api: 'chat@qwen-code', settings: '.qwen',
    start: (home, modelUrl) => { const { env, qwen } = qwenSetup(home, modelUrl); return { env, argv: qwen }; },
    ask: (text) => [text],
    // Its `mcp add` passes the flags it does not know to the server: npx's own --no-install.
    refuses: (entry) => entry.args?.[0] === '--no-install',
    // Its model runs commands through the `skill` tool, by the names a reminder lists: `ref` must not be one.
    invocable: (body) => [...JSON.stringify(body).matchAll(/<skill>\\n<name>\\n?([^<\\]*)/g)].map((match) => match[1]),
  },
};

export async function mcpHeadless(ctx, foreign, client) {
  const { name, binary, api, settings, start, ask, refuses, invocable } = HEADLESS[client];
  // What the client offers its model with no MCP server: its own run earlier in this run. Qwen Code
  // 0.24.4 announces `read_mcp_resource` (a deferred tool) in every request whatever is configured;
  // it reads nothing from sessref, which serves no resources without --resources.
  const ownRun = ctx.requests.filter((request) => request.api === api);
  check(ownRun.length > 0, `the fake model has no request from ${name}'s own run, to tell what it offers its model with no MCP server`);
  const builtIn = sessionReadingTools(api, ownRun);
  const home = await userHome(ctx.dir, foreign);
  const work = join(ctx.dir, 'work');
  mkdirSync(work, { recursive: true });
  installSessrefInto(work);
  const { env, argv } = start(home, ctx.modelUrl);
  const node = process.execPath;
  const setup = readmeSetup(binary);
  // `mcp add` takes none of the flags a prompt's run does (Qwen Code's refuses them): the binary alone.
  await step({ ...ctx, work }, `${binary} ${setup.join(' ')}`, node, [argv[0], ...setup], env);
  const settingsPath = join(work, settings, 'settings.json');
  const added = existsSync(settingsPath) ? JSON.parse(readFileSync(settingsPath, 'utf8')).mcpServers?.sessref : undefined;
  check(added !== undefined, `${binary} mcp add wrote no sessref entry into the project's ${settings}/settings.json`);
  check(refuses(added), `the entry ${binary} mcp add wrote would let npx fetch a package named sessref: ${JSON.stringify(added)}`);
  // Both submit a prompt's text as JSON.stringify(text) (McpPromptLoader): the model gets the
  // snapshot as one JSON string literal, framing and tags included, escaped once more.
  const cited = (await citations(home, foreign)).map((session) => ({ ...session, delivered: JSON.stringify(session.text) }));
  const results = [];
  for (const session of cited) {
    const prompt = `/ref --session=${session.id}`;
    const from = ctx.requests.length;
    const result = await step({ ...ctx, work }, [binary, ...ask(`"${prompt}"`)].join(' '), node, [...argv, ...ask(prompt)], env);
    expectStdout(result, 'Fake model', `/ref ${session.id}`);
    const requests = ctx.requests.slice(from);
    results.push({ ...session, ...checkReceived(requests, api, session, name, builtIn) });
    const commands = requests.filter((request) => request.api === api).flatMap((request) => invocable?.(request.body) ?? []);
    const prompts = commands.filter((command) => /^(?:.*:)?ref$|sessref/.test(command));
    check(prompts.length === 0, `${name} lets its model run sessref's ref prompt as a command: ${[...new Set(prompts)].join(', ')}`);
  }
  const control = await headlessResourcesControl({ ...ctx, work }, HEADLESS[client], settingsPath, [node, ...argv], env);
  return { cited: results, setup: `${binary} ${setup.join(' ')}`, control, builtIn };
}

/**
 * The tool check can fail: the same client, with the server started with
 * `--resources`, is offered the resource readers that make sessions a
 * model-facing lookup, and the check must name them.
 */
async function headlessResourcesControl(ctx, { name, binary, api, ask }, path, [command, ...args], env) {
  const settings = JSON.parse(readFileSync(path, 'utf8'));
  const entry = settings.mcpServers.sessref;
  writeFileSync(path, JSON.stringify({ ...settings, mcpServers: { sessref: { ...entry, args: [...entry.args, '--resources'] } } }, null, 2));
  try {
    const from = ctx.requests.length;
    expectStdout(await step(ctx, `control: ${binary} with sessref mcp --resources`, command, [...args, ...ask('Say hello.')], env), 'Fake model', 'control');
    const flagged = sessionReadingTools(api, ctx.requests.slice(from).filter((request) => request.api === api));
    check(flagged.length > 0, `with sessref mcp --resources, ${name} offered its model no resource tool: the check that no session-reading tool is offered cannot fail, so it proves nothing`);
    return flagged;
  } finally {
    writeFileSync(path, JSON.stringify(settings, null, 2));
  }
}

// ── Claude Code, interactive under tmux ──────────────────────────────────────
/** What the TUI needs to start straight into a prompt: onboarding done, the dummy key approved, the project trusted. */
function seedClaudeConfig(configDir, work, version) {
  const path = join(configDir, '.claude.json');
  const config = existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')) : {};
  const project = config.projects?.[work] ?? {};
  writeFileSync(path, JSON.stringify({
    ...config,
    hasCompletedOnboarding: true,
    lastOnboardingVersion: version,
    theme: 'dark',
    customApiKeyResponses: { approved: ['x'], rejected: [] },
    projects: { ...config.projects, [work]: { ...project, hasTrustDialogAccepted: true, hasCompletedProjectOnboarding: true } },
  }, null, 2));
}

export async function mcpClaude(ctx, foreign, version) {
  const home = await userHome(ctx.dir, foreign);
  const work = join(ctx.dir, 'work');
  mkdirSync(work, { recursive: true });
  installSessrefInto(work);
  const env = claudeEnv(home, ctx.modelUrl);
  const claude = binPath('claude-code');
  const setup = readmeSetup('claude');
  await step({ ...ctx, work }, `claude ${setup.join(' ')}`, claude, setup, env);
  seedClaudeConfig(env.CLAUDE_CONFIG_DIR, work, version);
  const cited = (await citations(home, foreign)).map((session) => ({ ...session, delivered: session.text }));

  ctx.log(`${ctx.name}: claude TUI under tmux: /mcp__sessref__ref for ${cited.length} sessions`);
  const started = Date.now();
  const quoted = (arg) => `'${arg.replaceAll("'", "'\\''")}'`;
  const command = ['timeout', '--foreground', '240', claude].map(quoted).join(' ');
  const tui = await startTmux({ socket: join(ctx.dir, 'tmux.sock'), cwd: work, env, command });
  ctx.onCleanup(() => tui.kill());
  let screen = '';
  const results = [];
  try {
    // The TUI connects MCP servers after it is up; sessref's prompt is a command (shown as /sessref:ref) only
    // then, and the menu does not refresh by itself: type /sessref, look, erase, retry.
    const listed = await poll(async () => {
      await tui.type('/sessref');
      const shown = await poll(async () => (screen = await tui.capture()).includes('/sessref:ref (MCP)'), 3000);
      await tui.key('BSpace', '/sessref'.length);
      return shown;
    }, 60_000);
    check(listed, `Claude Code's slash menu never offered sessref's ref prompt (/sessref:ref) within 60 s; screen: ${lastLines(screen, 6)}`);
    for (const session of cited) {
      const from = ctx.requests.length;
      await tui.type(`/mcp__sessref__ref ${session.id}`);
      await poll(async () => (await tui.capture()).includes(session.id), 5000);
      await tui.key('Enter');
      const arrived = await poll(() => ctx.requests.slice(from).some((request) => request.api === 'anthropic'
        && userTurns('anthropic', request.body).some((text) => text.includes(session.delivered))), 60_000);
      screen = await tui.capture();
      check(arrived, `the fake model received no request carrying the snapshot of ${session.kind} ${session.id} within 60 s; screen: ${lastLines(screen, 6)}`);
      // Let the turn finish (the reply on screen) before the next command, so side requests land in this window.
      await poll(async () => (await tui.capture()).split('Fake model').length > results.length + 1, 30_000);
      results.push({ ...session, ...checkReceived(ctx.requests.slice(from), 'anthropic', session, 'Claude Code') });
    }
    await tui.type('/exit');
    await tui.key('Enter');
    const ended = await poll(async () => !(await tui.alive()), 15_000);
    ctx.steps.push({ label: 'claude TUI /mcp__sessref__ref', ms: Date.now() - started, code: ended ? 0 : 'still running (killed)' });
  } finally {
    await tui.kill();
  }
  return { cited: results, setup: `claude ${setup.join(' ')}`, control: await claudeResourcesControl(ctx, work, claude, env) };
}

/**
 * The tool check can fail on Claude Code's requests too: `claude -p` with
 * the entry `claude mcp add` wrote plus `--resources` (through
 * `--mcp-config`, waiting for the server) is offered the resource readers.
 */
async function claudeResourcesControl(ctx, work, claude, env) {
  const config = JSON.parse(readFileSync(join(env.CLAUDE_CONFIG_DIR, '.claude.json'), 'utf8'));
  const entry = config.projects[work].mcpServers.sessref;
  const file = join(ctx.dir, 'mcp-resources.json');
  writeFileSync(file, JSON.stringify({ mcpServers: { sessref: { ...entry, args: [...entry.args, '--resources'] } } }));
  const from = ctx.requests.length;
  const args = ['-p', '--mcp-config', file, '--strict-mcp-config', 'Say hello.'];
  expectStdout(await step({ ...ctx, work }, 'control: claude -p with sessref mcp --resources', claude, args, { ...env, MCP_CONNECTION_NONBLOCKING: '0' }), 'Fake model', 'control');
  const flagged = sessionReadingTools('anthropic', ctx.requests.slice(from).filter((request) => request.api === 'anthropic'));
  check(flagged.length > 0, 'with sessref mcp --resources, Claude Code offered its model no resource tool: the check that no session-reading tool is offered cannot fail, so it proves nothing');
  return flagged;
}
