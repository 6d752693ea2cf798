/**
 * `npm run test:dsh-app`: the real published `dsh web` (0.1.0-rc.8) as a
 * test, first with its official session-reference plugin, then with
 * `@sessref/dsh` installed from the packed tarball through
 * `dsh plugin --profile web add`, driven in Chromium and compared.
 *
 * Per phase: a fresh DSH_HOME seeded by `sessref seed`, a stub model server,
 * `dsh web` on a loopback port, the Web UI: connect a workspace, type `@`,
 * record the menu, narrow it to `oauth`, insert with Enter, send, wait for the
 * reply; then decode the target's log (the readable message, then the
 * snapshot message), read what the model was sent, call the gateway's
 * `sessionReferenceResolver/candidates` with good and bad queries, and take a
 * second plain turn on the same session. Then, with dsh web stopped, the
 * built `sessref` CLI creates a session in the workspace (`new`) and appends
 * a turn citing a seeded session (`send`); dsh web boots again, the session
 * is opened from the sidebar, shows the message and its recall row, and
 * takes a plain turn; its log must still decode and load in sessref.
 *
 * Last, the foreign phase: sessref's bundle with a Claude Code session the
 * real Claude Code CLI wrote (made once by lib/claude-session.mjs) in the user
 * Claude Code home; the `@` menu lists it after every dsh session, and citing
 * it puts its snapshot in the target's log. The first two phases run with
 * every agent's home override pointing at an absent folder, so no agent's
 * sessions of the machine reach their comparison.
 *
 * Flags: --install-only, --no-build (use the existing builds and tarball), --official-only,
 * --no-agents (skip the foreign phase),
 * --require-sessref (a missing tarball fails instead of skipping phase 2),
 * --tarball=<path> (phase 2 with another tarball), --keep (keep the temporary homes).
 */
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { clearTimeout, setTimeout } from 'node:timers';
import zlib from 'node:zlib';
import { claudeScript, ensureClaudeSession } from './lib/claude-session.mjs';
import { agentHomesEnv, bootDshWeb, callRemote, dshEnv, dumpConfig, pluginAdd } from './lib/dsh.mjs';
import { CACHE_DIR, childEnv, ensureInstall, REPO_ROOT } from './lib/install.mjs';
import { killAllSync, lastLines, run, stopAll } from './lib/proc.mjs';
import { listSessionLogs, logProblems, messageText, readSessionLog } from './lib/session-log.mjs';
import { startStubModel } from './lib/stub-model.mjs';
import { launchBrowser, openApp, openListedSession, pickReference, readChipMessage, sendAndWaitForReply, waitFor } from './lib/ui.mjs';

const HARD_TIMEOUT_MS = 10 * 60_000;
const FLAGS = new Set(process.argv.slice(2).filter((arg) => !arg.startsWith('--tarball=')));
const TARBALL_OVERRIDE = process.argv.slice(2).find((arg) => arg.startsWith('--tarball='))?.slice('--tarball='.length);
const DOCS = join(REPO_ROOT, 'docs');
const SOURCE = { id: 'oauth-migration', label: 'Migrate auth to OAuth', filter: 'oauth' };
const FIRST_TEXT = 'what was decided there?';
const SECOND_TEXT = 'Thanks. One plain follow-up without references.';
const TITLE_ANSWER = 'Reference check session';
const SHOTS = ['picker', 'sent', 'cli-session'];
const FOREIGN_SHOTS = ['picker', 'sent'];
const CLI_BIN = join(REPO_ROOT, 'packages/cli/bundle/bin.js');
const CLI_TITLE = 'Written by sessref';
const CLI_QUESTION = (mention) => `What did we decide in ${mention}?`;
const CLI_READABLE = `What did we decide in @${SOURCE.label}?`;
const CLI_FOLLOW_UP = 'A plain follow-up in dsh after sessref send.';
const REFERENCE_KEYS = ['sessionId', 'label', 'capturedThroughSeq', 'compacted', 'originalMessages', 'retainedMessages',
  'omittedMessages', 'omittedBytes', 'truncated', 'inputIndex'];
const SNAPSHOT_KEYS = ['sessionId', 'label', 'cwd', 'capturedThroughSeq', 'conversation'];
const started = Date.now();

class Failure extends Error {}
const fail = (message) => { throw new Failure(message); };
const check = (condition, message) => { if (!condition) fail(message); };
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
const log = (line) => process.stderr.write(`[dsh-app ${seconds(Date.now() - started).padStart(7)}] ${line}\n`);

/** Run one step; an unexpected error becomes a Failure naming the step. */
async function stage(label, fn) {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof Failure) throw error;
    // eslint-disable-next-line no-control-regex
    const first = String(error?.message ?? error).replace(/\u001b\[[0-9;]*m/g, '').split('\n')[0];
    throw new Failure(`${label}: ${first}`);
  }
}

// ── the model stub: a fixed title, numbered replies per phase ───────────────
const replies = { count: 0 };
const isTitleRequest = (body) => JSON.stringify(body.messages?.[0] ?? '').includes('concise title');
const stubAnswer = (body) => {
  if (isTitleRequest(body)) return TITLE_ANSWER;
  replies.count += 1;
  return `Stub reply ${replies.count}: noted.`;
};

// ── build, pack, tarball ─────────────────────────────────────────────────────
async function buildAndPack() {
  const scripts = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')).scripts ?? {};
  const version = JSON.parse(readFileSync(join(REPO_ROOT, 'packages/dsh/package.json'), 'utf8')).version;
  const tarball = join(REPO_ROOT, 'artifacts', `sessref-dsh-${version}.tgz`);
  if (!FLAGS.has('--no-build')) {
    // `npm run pack` builds first; without it, build only (phase 1 needs the CLI for `seed`).
    const script = scripts.pack === undefined ? 'build' : 'pack';
    log(`npm run ${script}`);
    const result = await run('npm', ['run', script], { cwd: REPO_ROOT, env: childEnv(), timeoutMs: 5 * 60_000, label: `npm run ${script}` });
    check(!result.timedOut, `npm run ${script} timed out after 300 s`);
    check(result.code === 0, `npm run ${script} failed (exit ${result.code}): ${lastLines(`${result.stdout}\n${result.stderr}`)}`);
  }
  check(existsSync(join(REPO_ROOT, 'packages/cli/bundle/bin.js')), 'packages/cli/bundle/bin.js is missing: run npm run build');
  if (TARBALL_OVERRIDE !== undefined) {
    const path = resolve(TARBALL_OVERRIDE);
    check(existsSync(path), `--tarball: ${path} does not exist`);
    return { tarball: path };
  }
  if (scripts.pack === undefined) return { tarball: undefined, why: 'package.json has no "pack" script yet' };
  if (!existsSync(tarball)) return { tarball: undefined, why: `${tarball} does not exist after npm run pack`, broken: true };
  return { tarball };
}

/** package.json inside a tarball, read with tar. */
async function tarballManifest(tarball) {
  const result = await run('tar', ['-xzOf', tarball, 'package/package.json'], { timeoutMs: 30_000, label: 'tar' });
  check(result.code === 0, `cannot read package/package.json from ${tarball}: ${lastLines(result.stderr)}`);
  return JSON.parse(result.stdout);
}

// ── log checks ───────────────────────────────────────────────────────────────
/** The log of the one session whose cwd is the workspace. */
function targetLog(home, workspace) {
  const logs = listSessionLogs(join(home, 'sessions'))
    .map((entry) => ({ ...entry, log: readSessionLog(entry.path) }))
    .filter((entry) => entry.log.header?.cwd === workspace);
  check(logs.length === 1, `expected one session in the workspace ${workspace}, found ${logs.length}`);
  return logs[0];
}

/** Events of turn `turn`, from its turn/start through its turn/end. */
function turnEvents(events, turn) {
  const start = events.findIndex((event) => event.type === 'turn/start' && event.data?.turn === turn);
  const end = events.findIndex((event) => event.type === 'turn/end' && event.data?.turn === turn);
  if (start < 0 || end < 0) return undefined;
  return events.slice(start, end + 1);
}

/** The order of the model-relevant events of a turn (titles and request metadata race, so they are left out). */
function turnShape(events) {
  return events.flatMap((event) => {
    switch (event.type) {
      case 'turn/start': case 'turn/end': case 'step/start': case 'step/end': return [event.type];
      case 'user/message': return [`user/message(${event.data?.source?.kind}${event.data?.source?.plugin ? `:${event.data.source.plugin}` : ''})`];
      case 'assistant/message': return ['assistant/message'];
      default: return [];
    }
  });
}

/** Turn 1: the readable message citing `cited` (a session id and label), directly followed by its snapshot. */
function checkReferenceTurn(events, phase, cited = SOURCE) {
  const turn = turnEvents(events, 1);
  check(turn !== undefined, `${phase}: the target log has no complete turn 1`);
  const end = turn.at(-1);
  check(end.data?.reason?.kind === 'completed', `${phase}: turn 1 ended ${JSON.stringify(end.data?.reason)}, not completed`);
  const users = turn.filter((event) => event.type === 'user/message');
  const readableIndex = users.findIndex((event) => event.data?.source?.kind === 'user');
  check(readableIndex >= 0, `${phase}: turn 1 has no user-authored message`);
  const readable = users[readableIndex];
  const readableText = messageText(readable.data);
  const expectedText = `@${cited.label} ${FIRST_TEXT}`;
  check(readableText === expectedText, `${phase}: the readable message is ${JSON.stringify(readableText)}, expected ${JSON.stringify(expectedText)}`);
  const snapshot = users[readableIndex + 1];
  check(snapshot?.data?.source?.kind === 'session-reference',
    `${phase}: the message after the readable one has source kind ${JSON.stringify(snapshot?.data?.source?.kind)}, expected session-reference`);
  check(snapshot.seq === readable.seq + 1, `${phase}: the snapshot message (seq ${snapshot.seq}) does not directly follow the readable one (seq ${readable.seq})`);
  const source = snapshot.data.source;
  check(source.form === 'recall' && source.version === 1 && Array.isArray(source.references) && source.references.length === 1,
    `${phase}: the snapshot source is ${JSON.stringify(source).slice(0, 200)}`);
  const reference = source.references[0];
  check(isDeepStrictEqual(Object.keys(reference), REFERENCE_KEYS), `${phase}: reference keys are ${Object.keys(reference).join(',')}`);
  check(reference.sessionId === cited.id && reference.label === cited.label && reference.inputIndex === 0,
    `${phase}: the reference names ${reference.sessionId} / ${reference.label}`);
  const text = messageText(snapshot.data);
  check(text.startsWith('## Referenced sessions'), `${phase}: the snapshot text does not start with "## Referenced sessions"`);
  const open = text.indexOf('\n<referenced-sessions>\n');
  const close = text.indexOf('\n</referenced-sessions>');
  check(open > 0 && close > open, `${phase}: the snapshot text has no <referenced-sessions> … </referenced-sessions> block`);
  const json = text.slice(open + '\n<referenced-sessions>\n'.length, close);
  check(!json.includes('<'), `${phase}: the snapshot JSON holds a raw "<"`);
  let data;
  try { data = JSON.parse(json); } catch (error) { fail(`${phase}: the snapshot JSON does not parse: ${error.message}`); }
  check(Array.isArray(data) && data.length === 1 && isDeepStrictEqual(Object.keys(data[0]), SNAPSHOT_KEYS),
    `${phase}: the snapshot data is not one object with keys ${SNAPSHOT_KEYS.join(',')}`);
  check(data[0].sessionId === cited.id && data[0].label === cited.label && data[0].capturedThroughSeq === reference.capturedThroughSeq,
    `${phase}: snapshot data and source disagree on the session or capturedThroughSeq`);
  return { shape: turnShape(turn), readableText, source, data, text, messages: data[0].conversation.length, framing: [text.slice(0, open), text.slice(close)] };
}

function checkPlainTurn(events, phase) {
  const turn = turnEvents(events, 2);
  check(turn !== undefined, `${phase}: the target log has no complete turn 2`);
  check(turn.at(-1).data?.reason?.kind === 'completed', `${phase}: turn 2 ended ${JSON.stringify(turn.at(-1).data?.reason)}`);
  const kinds = turn.filter((event) => event.type === 'user/message').map((event) => event.data?.source?.kind);
  check(!kinds.includes('session-reference'), `${phase}: turn 2 carries a session-reference message`);
  const user = turn.find((event) => event.type === 'user/message' && event.data?.source?.kind === 'user');
  check(messageText(user?.data) === SECOND_TEXT, `${phase}: turn 2's user message is ${JSON.stringify(messageText(user?.data))}`);
  check(turn.some((event) => event.type === 'assistant/message'), `${phase}: turn 2 has no assistant message`);
  return turnShape(turn);
}

/** What the model was sent for the reference turn: the readable message citing `label`, then the snapshot. */
function checkModelRequest(requests, phase, label = SOURCE.label) {
  const request = requests.find((body) => !isTitleRequest(body));
  check(request !== undefined, `${phase}: the stub model received no chat request`);
  const texts = request.messages.map((message) => (typeof message.content === 'string' ? message.content
    : (message.content ?? []).map((part) => part.text ?? '').join('')));
  const readable = texts.findIndex((text) => text === `@${label} ${FIRST_TEXT}`);
  check(readable >= 0, `${phase}: the model request has no readable message "@${label} ${FIRST_TEXT}"`);
  check(texts[readable + 1]?.includes('<referenced-sessions>') && request.messages[readable + 1].role === 'user',
    `${phase}: the model request's message after the readable one is not the snapshot`);
  return { roles: request.messages.map((message) => message.role), snapshot: texts[readable + 1] };
}

// ── gateway checks ───────────────────────────────────────────────────────────
/** Candidates through the gateway: good queries answer, non-string queries are refused at the boundary. */
async function gatewayChecks(url, agentId, phase) {
  const normalize = (result) => (result.ok
    ? { ok: true, value: result.value.map((row) => ({ ...row, createdAt: row.createdAt - Math.max(...result.value.map((r) => r.createdAt)) })) }
    : { ok: false, code: result.error?.code, message: result.error?.message });
  const out = {};
  for (const [name, query] of [['empty', ''], ['oauth', SOURCE.filter]]) {
    const result = await callRemote(url, 'sessionReferenceResolver/candidates', { agentId, query });
    check(result.ok === true && Array.isArray(result.value), `${phase}: candidates with query ${JSON.stringify(query)} failed: ${JSON.stringify(result.error ?? result).slice(0, 200)}`);
    out[name] = normalize(result);
  }
  for (const [name, query] of [['number', 42], ['array', ['oauth']]]) {
    const result = await callRemote(url, 'sessionReferenceResolver/candidates', { agentId, query });
    check(result.ok === false, `${phase}: candidates with query ${JSON.stringify(query)} was accepted (strict descriptor missing?)`);
    check(/wire field "query" failed boundary validation/.test(result.error?.message ?? ''),
      `${phase}: candidates with query ${JSON.stringify(query)} was refused, but not at the gateway boundary: ${result.error?.message}`);
    out[name] = normalize(result);
  }
  return out;
}

// ── one phase ────────────────────────────────────────────────────────────────
/**
 * A phase's dsh home: seeded by `sessref seed`, the tarball added when there
 * is one, and `--dump-config` showing the expected rows. dsh runs with every
 * other agent's home override set to `agentHomes` (no agent's sessions unless
 * the phase put some there).
 */
async function prepareHome(name, { runRoot, stub, tarball, agentHomes }) {
  const record = { name, timings: {} };
  const home = join(runRoot, name, 'home');
  mkdirSync(join(runRoot, name, 'agents'), { recursive: true });
  mkdirSync(home, { recursive: true });
  const base = { home, modelUrl: stub.url, agentsHome: join(runRoot, name, 'agents') };
  const env = dshEnv({ ...base, agentHomes });
  const cwd = join(runRoot, name);

  log(`${name}: seed ${home}/sessions`);
  // sessref seeds a root it is pointed at only when that exists: it never creates one.
  mkdirSync(join(home, 'sessions'));
  const seed = await run(process.execPath, [CLI_BIN, 'seed', '--root', join(home, 'sessions')], {
    cwd, env: childEnv({ NO_COLOR: '1' }), timeoutMs: 60_000, label: 'sessref seed',
  });
  check(seed.code === 0, `${name}: sessref seed failed: ${lastLines(seed.stderr || seed.stdout)}`);

  let pkg;
  if (tarball !== undefined) {
    pkg = await tarballManifest(tarball);
    check(typeof pkg.dsh?.bundle?.patch === 'string',
      `${name}: ${pkg.name} declares no "dsh": { "bundle": { "patch": … } }, so dsh plugin add would install it as a plain dependency`);
    log(`${name}: dsh plugin --profile web add ${tarball}`);
    const addStarted = Date.now();
    await stage(`${name}: dsh plugin add`, () => pluginAdd({ env, cwd, spec: tarball }));
    record.timings.pluginAdd = Date.now() - addStarted;
    const installed = join(home, 'profiles/web/node_modules', pkg.name);
    for (const file of ['package.json', pkg.dsh.bundle.patch, pkg.main ?? 'dist/index.js']) {
      const packed = await run('tar', ['-xzOf', tarball, join('package', file)], { timeoutMs: 30_000, label: 'tar' });
      check(packed.code === 0 && existsSync(join(installed, file)) && readFileSync(join(installed, file), 'utf8') === packed.stdout,
        `${name}: the installed ${pkg.name}/${file} is not the one in ${tarball}`);
    }
    const profile = JSON.parse(readFileSync(join(home, 'profiles/web/package.json'), 'utf8'));
    check(profile.dsh?.profile?.bundles?.includes(pkg.name), `${name}: dsh plugin add did not list ${pkg.name} in dsh.profile.bundles`);
    record.bundles = profile.dsh.profile.bundles;
  }

  const dump = await stage(`${name}: dsh web --dump-config`, () => dumpConfig({ env, cwd }));
  const official = dump.rows.find((row) => row.id === 'session-reference');
  check(official?.name === '@deepseek-ai/dsh-session-reference', `${name}: --dump-config has no official session-reference row`);
  if (pkg === undefined) {
    check(official.disabled !== true, `${name}: the official session-reference row is disabled without any plugin`);
    record.rows = ['session-reference active'];
  } else {
    check(official.disabled === true, `${name}: --dump-config shows the official session-reference row still active`);
    check(official.origin.includes(`patched by ${pkg.name}`), `${name}: the official row is not patched by ${pkg.name} (provenance: ${official.origin})`);
    const ours = dump.rows.filter((row) => row.name === pkg.name || row.name?.startsWith(`${pkg.name}/`));
    check(ours.length > 0, `${name}: --dump-config has no row of ${pkg.name}`);
    check(ours.every((row) => row.disabled !== true), `${name}: a row of ${pkg.name} is disabled`);
    record.rows = ['session-reference disabled', `${ours.map((row) => row.id).join(', ')} active`];
  }
  return { record, home, env, cwd, pkg };
}

/**
 * What every phase does in the Web UI of the running `web`: open it on
 * `workspace`, pick the session `pick` names from the `@` menu (screenshot
 * `dsh-app-<name>-picker.png`), send FIRST_TEXT after its mention, wait for
 * turn 1 to end in the target's log and for the conversation's "Session
 * recall" row (screenshot `dsh-app-<name>-sent.png`). The phase's own checks
 * come in `checks`: `picked` (returns what the record keeps of the menu),
 * `prompt` (the text the page sent) and `turn` (turn 1's log and everything
 * after it; returns the target as it ends, whose log must be clean). The page
 * must not have thrown. A failure leaves `<name>-failure.png`; the page is
 * closed and dsh web stopped whatever happens.
 */
async function citeInWebUi(name, { runRoot, workspace, stub, browser, home, web, record }, { pick, checks }) {
  replies.count = 0;
  const firstRequest = stub.requests.length;
  let opened;
  try {
    log(`${name}: open the Web UI, connect the workspace`);
    opened = await stage(`${name}: opening the Web UI`, () => openApp(browser, { url: web.url, workspace }));
  } catch (error) {
    await web.handle.stop();
    throw error;
  }
  const { page, context, problems } = opened;
  try {
    log(`${name}: @ menu`);
    const picked = await stage(`${name}: @ menu`, () => pickReference(page, { ...pick, shot: join(runRoot, `dsh-app-${name}-picker.png`) }));
    record.picker = checks.picked(picked);
    log(`${name}: send, wait for the reply`);
    const prompt = await stage(`${name}: first send`, () => sendAndWaitForReply(page, { text: FIRST_TEXT, reply: 'Stub reply 1: noted.' }));
    record.promptText = prompt.content?.map((part) => part.text).join('');
    checks.prompt(record.promptText);
    let target;
    await waitFor(() => {
      target = targetLog(home, workspace);
      return turnEvents(target.log.events, 1) !== undefined;
    }, 30_000, () => `${name}: turn 1 did not end in the target log within 30 s`);
    await page.getByRole('button', { name: `Session recall ${pick.expectLabel}` }).waitFor({ timeout: 15_000 }).catch(() => {
      fail(`${name}: the conversation shows no "Session recall ${pick.expectLabel}" row`);
    });
    await page.screenshot({ path: join(runRoot, `dsh-app-${name}-sent.png`) });
    const last = await checks.turn({ page, target, requests: () => stub.requests.slice(firstRequest) });
    const problemsInLog = logProblems(last.log);
    check(problemsInLog.length === 0, `${name}: the target log is not clean: ${problemsInLog.join('; ')}`);
    check(problems.pageErrors.length === 0, `${name}: the page threw: ${problems.pageErrors[0]}`);
    record.consoleErrors = problems.consoleErrors.length;
  } catch (error) {
    await page.screenshot({ path: join(runRoot, `${name}-failure.png`) }).catch(() => {});
    log(`${name}: failure screenshot ${join(runRoot, `${name}-failure.png`)}`);
    throw error;
  } finally {
    await context.close().catch(() => {});
    await web.handle.stop();
  }
}

async function runPhase(name, { runRoot, workspace, stub, browser, tarball }) {
  const phaseStarted = Date.now();
  // No agent home: the official-vs-sessref comparison is over dsh's sessions only.
  const agentHomes = agentHomesEnv(join(runRoot, name, 'no-agents'));
  const { record, home, env, cwd, pkg } = await prepareHome(name, { runRoot, stub, tarball, agentHomes });

  log(`${name}: boot dsh web`);
  const web = await stage(`${name}: booting dsh web`, () => bootDshWeb({ env, cwd, label: `${name}: dsh web` }));
  record.timings.boot = web.ms;
  const inventory = await stage(`${name}: pluginInventory/list`, () => callRemote(web.url, 'pluginInventory/list', {}));
  check(inventory.ok === true, `${name}: pluginInventory/list failed: ${inventory.error?.message}`);
  const entries = inventory.value.entries;
  const officialEntry = entries.find((entry) => entry.moduleName === '@deepseek-ai/dsh-session-reference');
  const moduleNames = pkg === undefined ? ['@deepseek-ai/dsh-session-reference'] : [pkg.name];
  const live = entries.filter((entry) => moduleNames.some((m) => entry.moduleName === m || entry.moduleName.startsWith(`${m}/`)));
  check(live.length > 0 && live.every((entry) => entry.enabled && entry.fiberPhase === 'active'),
    `${name}: the running tree does not have ${moduleNames.join(', ')} active: ${JSON.stringify(live)}`);
  if (pkg !== undefined) {
    check(officialEntry === undefined || !(officialEntry.enabled && officialEntry.fiberPhase === 'active'),
      `${name}: the official plugin is still active in the running tree`);
  }
  record.inventory = live.map((entry) => `${entry.entryId}=${entry.fiberPhase}`);

  await citeInWebUi(name, { runRoot, workspace, stub, browser, home, web, record }, {
    pick: { filter: SOURCE.filter, expectId: SOURCE.id, expectLabel: SOURCE.label },
    checks: {
      picked: (picked) => picked,
      prompt: (text) => check(/^@\[Migrate auth to OAuth\]\(dsh-session:[A-Za-z0-9_-]+\) what was decided there\?$/.test(text ?? ''),
        `${name}: the page sent ${JSON.stringify(text)} instead of a mention plus the text`),
      turn: async ({ page, target, requests }) => {
        record.turn1 = checkReferenceTurn(target.log.events, name);
        record.sessionId = target.log.header.id;
        record.model = checkModelRequest(requests(), name);

        log(`${name}: gateway candidates (good and non-string queries)`);
        record.gateway = await stage(`${name}: gateway`, () => gatewayChecks(web.url, record.sessionId, name));

        log(`${name}: a second, plain turn on the same session`);
        await stage(`${name}: second send`, () => sendAndWaitForReply(page, { text: SECOND_TEXT, reply: 'Stub reply 2: noted.' }));
        let last;
        await waitFor(() => {
          last = targetLog(home, workspace);
          return turnEvents(last.log.events, 2) !== undefined;
        }, 30_000, () => `${name}: turn 2 did not end in the target log within 30 s`);
        record.turn2 = checkPlainTurn(last.log.events, name);
        record.log = { frames: last.log.frames, events: last.log.events.length, folder: last.folder };
        return last;
      },
    },
  });
  record.cli = await cliSession(name, { runRoot, workspace, stub, browser, home, env, cwd, agentHomes });
  record.timings.total = Date.now() - phaseStarted;
  log(`${name}: passed in ${seconds(record.timings.total)}`);
  return record;
}

// ── another agent's session, cited in dsh web ────────────────────────────────
/**
 * sessref's bundle on a fresh home, `CLAUDE_CONFIG_DIR` holding the Claude
 * Code session the real CLI wrote (its `projects` folder copied from the
 * cache), every other agent's home absent; the workspace is that session's own cwd, so a ranking
 * by cwd alone would list it first. The `@` menu must list it after every dsh
 * session, labelled with its agent; picked and sent, the target's log must
 * gain its snapshot framed exactly as the dsh source's of the sessref phase,
 * holding what Claude Code kept after its compaction and nothing it dropped
 * or injected.
 */
async function foreignPhase(name, { runRoot, stub, browser, tarball, claude, dshFraming }) {
  const phaseStarted = Date.now();
  const claudeConfig = join(runRoot, name, 'claude-config');
  cpSync(claude.projects, join(claudeConfig, 'projects'), { recursive: true });
  const agentHomes = agentHomesEnv(join(runRoot, name, 'no-agents'), { claude: claudeConfig });
  const { record, home, env, cwd } = await prepareHome(name, { runRoot, stub, tarball, agentHomes });
  const workspace = claude.cwd;
  const cited = { id: `claude-code:${claude.nativeId}`, label: `Claude Code · ${claudeScript().title}` };
  record.cited = { ...cited, cwd: claude.cwd, version: claude.version, made: claude.made };

  log(`${name}: boot dsh web (CLAUDE_CONFIG_DIR holds a Claude Code ${claude.version} session)`);
  const web = await stage(`${name}: booting dsh web`, () => bootDshWeb({ env, cwd, label: `${name}: dsh web` }));
  record.timings.boot = web.ms;
  await citeInWebUi(name, { runRoot, workspace, stub, browser, home, web, record }, {
    pick: { filter: claude.nativeId.slice(0, 8), expectId: cited.id, expectLabel: cited.label, showLast: true },
    checks: {
      picked: (picked) => {
        const rows = picked.allRows.map((row) => row.name);
        const at = rows.findIndex((row) => row.includes(` ${cited.id} `));
        check(at >= 0, `${name}: the @ menu does not list the Claude Code session ${cited.id} (rows: ${JSON.stringify(rows)})`);
        check(rows[at].startsWith(`Session · ${cited.label} `), `${name}: the Claude Code row reads ${JSON.stringify(rows[at])}, not labelled ${JSON.stringify(cited.label)}`);
        check(at === rows.length - 1 && rows.length > 1, `${name}: the Claude Code session is row ${at + 1} of ${rows.length}, not after every dsh session`);
        return { rows: rows.length, at: at + 1, row: rows[at] };
      },
      prompt: (text) => check(text?.startsWith(`@[${cited.label}](dsh-session:`) && text.endsWith(`) ${FIRST_TEXT}`),
        `${name}: the page sent ${JSON.stringify(text)} instead of the Claude Code session's mention plus the text`),
      turn: ({ target, requests }) => {
        const turn = checkReferenceTurn(target.log.events, name, cited);
        check(isDeepStrictEqual(turn.framing, dshFraming), `${name}: the snapshot's framing (heading, untrusted-data warning, tags) differs from the dsh source's`);
        const conversation = turn.data[0].conversation;
        const { kept, dropped } = claudeScript();
        const brief = (items) => JSON.stringify(items.map((item) => `${item.role}: ${(item.text ?? item.contains).slice(0, 50)}`));
        check(conversation.length === kept.length && kept.every((want, i) => conversation[i].role === want.role
          && (want.text === undefined ? conversation[i].text.includes(want.contains) : conversation[i].text === want.text)),
        `${name}: the snapshot's conversation is ${brief(conversation)}, not what Claude Code keeps: ${brief(kept)}`);
        for (const phrase of dropped) {
          check(!conversation.some((item) => item.text.includes(phrase)), `${name}: the snapshot carries ${JSON.stringify(phrase)}, which Claude Code compacted away or ran as a command`);
        }
        check(turn.data[0].cwd === workspace, `${name}: the snapshot's cwd is ${JSON.stringify(turn.data[0].cwd)}`);
        record.turn1 = turn;
        record.model = checkModelRequest(requests(), name, cited.label);
        return target;
      },
    },
  });
  record.timings.total = Date.now() - phaseStarted;
  log(`${name}: passed in ${seconds(record.timings.total)}`);
  return record;
}

// ── a session sessref wrote to, reopened in dsh ──────────────────────────────
/** The one session log under `root` whose header has `id`. */
function sessionLogById(root, id, phase) {
  const found = listSessionLogs(root).filter((entry) => readSessionLog(entry.path).header?.id === id);
  check(found.length === 1, `${phase}: expected one log of session ${id} under ${root}, found ${found.length}`);
  return { ...found[0], log: readSessionLog(found[0].path) };
}

/** The text of every message of a chat request, in order. */
const requestTexts = (request) => request.messages.map((message) => (typeof message.content === 'string' ? message.content
  : (message.content ?? []).map((part) => part.text ?? '').join('')));

/**
 * With no dsh process running: `sessref new` in the workspace and `sessref
 * send` citing the source session; then boot dsh web again, open that session
 * from the sidebar, check what the conversation shows, take a plain turn, and
 * check the log (the sessref turn untouched and followed by dsh's completed
 * turn, contiguous seqs, every frame decoding) and that `sessref show` still
 * loads it.
 */
async function cliSession(name, { runRoot, workspace, stub, browser, home, env, cwd, agentHomes }) {
  const started = Date.now();
  const phase = `${name}: CLI session`;
  const out = { timings: {} };
  const root = join(home, 'sessions');
  const cliEnv = childEnv({ NO_COLOR: '1', SESSREF_CACHE_DIR: join(runRoot, name, 'sessref-cache'), ...agentHomes });
  const sessref = async (args) => {
    const result = await run(process.execPath, [CLI_BIN, ...args, '--root', root, '--json'], {
      cwd, env: cliEnv, timeoutMs: 60_000, label: `sessref ${args[0]}`,
    });
    check(!result.timedOut, `${phase}: sessref ${args[0]} timed out after 60 s`);
    check(result.code === 0, `${phase}: sessref ${args[0]} exited ${result.code}: ${lastLines(result.stderr || result.stdout)}`);
    try { return JSON.parse(result.stdout); } catch { return fail(`${phase}: sessref ${args[0]} --json printed no JSON: ${result.stdout.slice(0, 120)}`); }
  };

  log(`${name}: sessref new / mention / send (dsh web stopped)`);
  const { mention } = await sessref(['mention', SOURCE.id]);
  check(/^@\[Migrate auth to OAuth\]\(dsh-session:[A-Za-z0-9_-]+\)$/.test(mention ?? ''), `${phase}: sessref mention printed ${JSON.stringify(mention)}`);
  const { sessionId } = await sessref(['new', '--cwd', workspace, '--title', CLI_TITLE]);
  check(typeof sessionId === 'string' && sessionId.length > 0, `${phase}: sessref new printed no sessionId`);
  out.sessionId = sessionId;
  const sent = await sessref(['send', '--target', sessionId, CLI_QUESTION(mention)]);
  check(Array.isArray(sent.appendedSeqs) && sent.appendedSeqs.length === 2, `${phase}: sessref send reported appendedSeqs ${JSON.stringify(sent.appendedSeqs)}`);
  check(sent.references?.[0]?.sessionId === SOURCE.id, `${phase}: sessref send cited ${JSON.stringify(sent.references?.map((r) => r.sessionId))}`);
  out.appendedSeqs = sent.appendedSeqs;

  // What sessref wrote, before dsh sees it.
  const before = sessionLogById(root, sessionId, phase);
  const beforeProblems = logProblems(before.log);
  check(beforeProblems.length === 0, `${phase}: the log sessref wrote is not clean: ${beforeProblems.join('; ')}`);
  const [readableSeq, snapshotSeq] = sent.appendedSeqs;
  const readable = before.log.events.find((event) => event.seq === readableSeq);
  const snapshot = before.log.events.find((event) => event.seq === snapshotSeq);
  check(readable?.type === 'user/message' && readable.data?.source?.kind === 'user' && messageText(readable.data) === CLI_READABLE,
    `${phase}: seq ${readableSeq} is not the readable message ${JSON.stringify(CLI_READABLE)}: ${JSON.stringify(readable).slice(0, 160)}`);
  check(snapshotSeq === readableSeq + 1 && snapshot?.type === 'user/message' && snapshot.data?.source?.kind === 'session-reference'
    && snapshot.data.source.references?.[0]?.sessionId === SOURCE.id && messageText(snapshot.data).includes('\n<referenced-sessions>\n'),
  `${phase}: seq ${snapshotSeq} is not the session-reference snapshot of ${SOURCE.id}`);
  const sessrefTurn = before.log.events.findLast((event) => event.type === 'turn/start' && event.seq < readableSeq)?.data?.turn;
  const sessrefEvents = turnEvents(before.log.events, sessrefTurn);
  check(sessrefEvents !== undefined && sessrefEvents.at(-1).seq === before.log.events.at(-1).seq,
    `${phase}: sessref's turn ${sessrefTurn} is not the closed last turn of the log`);
  check(sessrefEvents.at(-1).data?.reason?.kind === 'interrupted', `${phase}: sessref's turn ended ${JSON.stringify(sessrefEvents.at(-1).data?.reason)}, not interrupted`);
  out.sessrefTurn = { turn: sessrefTurn, shape: turnShape(sessrefEvents) };
  out.timings.cli = Date.now() - started;

  log(`${name}: boot dsh web again, open the sessref-written session`);
  const web = await stage(`${phase}: booting dsh web again`, () => bootDshWeb({ env, cwd, label: `${name}: dsh web (2nd boot)` }));
  out.timings.boot = web.ms;
  replies.count = 0;
  const firstRequest = stub.requests.length;
  const failureShot = join(runRoot, `${name}-cli-failure.png`);
  let opened;
  try {
    opened = await stage(`${phase}: opening it from the sidebar`, () => openListedSession(browser, {
      url: web.url, labels: [CLI_TITLE, basename(workspace)], title: CLI_TITLE, failureShot,
    }));
  } catch (error) {
    log(`${name}: failure screenshot ${failureShot}`);
    await web.handle.stop();
    throw error;
  }
  const { page, context, problems } = opened;
  out.sidebar = { group: opened.group, label: opened.label };
  try {
    out.uiMessage = await stage(`${phase}: the sent message`, () => readChipMessage(page, { label: SOURCE.label }));
    check(out.uiMessage === CLI_READABLE, `${phase}: the conversation shows ${JSON.stringify(out.uiMessage)}, expected ${JSON.stringify(CLI_READABLE)}`);
    await page.getByRole('button', { name: `Session recall ${SOURCE.label}` }).waitFor({ timeout: 15_000 }).catch(() => {
      fail(`${phase}: the conversation shows no "Session recall ${SOURCE.label}" row for sessref's snapshot`);
    });

    log(`${name}: a plain turn in dsh on the sessref-written session`);
    const prompt = await stage(`${phase}: send in dsh`, () => sendAndWaitForReply(page, { text: CLI_FOLLOW_UP, reply: 'Stub reply 1: noted.' }));
    out.promptText = prompt.content?.map((part) => part.text).join('');
    check(out.promptText === CLI_FOLLOW_UP, `${phase}: the page sent ${JSON.stringify(out.promptText)}`);
    let after;
    await waitFor(() => {
      after = sessionLogById(root, sessionId, phase);
      return turnEvents(after.log.events, sessrefTurn + 1) !== undefined;
    }, 30_000, () => `${phase}: dsh's turn ${sessrefTurn + 1} did not end in the log within 30 s`);
    // Still on screen after the reply: sessref's message and recall row, then dsh's turn.
    check(await page.getByRole('button', { name: `Session recall ${SOURCE.label}` }).isVisible(), `${phase}: the recall row is gone after the reply`);
    await page.mouse.move(900, 650); // off the sidebar, so no row's hover card covers the shot
    await page.waitForTimeout(600);
    await page.screenshot({ path: join(runRoot, `dsh-app-${name}-cli-session.png`) });
    check(problems.pageErrors.length === 0, `${phase}: the page threw: ${problems.pageErrors[0]}`);
    out.consoleErrors = problems.consoleErrors.length;

    // The log: sessref's events untouched, then dsh's completed turn.
    const afterProblems = logProblems(after.log);
    check(afterProblems.length === 0, `${phase}: the log is not clean after dsh's turn: ${afterProblems.join('; ')}`);
    check(isDeepStrictEqual(after.log.header, before.log.header), `${phase}: dsh rewrote the session header`);
    check(isDeepStrictEqual(after.log.events.slice(0, before.log.events.length), before.log.events),
      `${phase}: the first ${before.log.events.length} events (what sessref wrote) changed after dsh's turn`);
    const dshEvents = turnEvents(after.log.events, sessrefTurn + 1);
    const dshStart = dshEvents[0].seq;
    const between = after.log.events.slice(before.log.events.length).filter((event) => event.seq < dshStart);
    check(between.every((event) => !/^(turn|step)\//.test(event.type) && !/message$/.test(event.type)),
      `${phase}: dsh wrote ${between.map((event) => event.type).join(', ')} between sessref's turn and its own`);
    check(dshEvents.at(-1).data?.reason?.kind === 'completed', `${phase}: dsh's turn ended ${JSON.stringify(dshEvents.at(-1).data?.reason)}, not completed`);
    check(dshEvents.every((event) => event.data?.turn === undefined || event.data.turn === sessrefTurn + 1),
      `${phase}: an event of dsh's turn names another turn`);
    check(dshEvents.some((event) => event.type === 'step/start') && dshEvents.some((event) => event.type === 'step/end'),
      `${phase}: dsh's turn has no complete step`);
    const user = dshEvents.find((event) => event.type === 'user/message' && event.data?.source?.kind === 'user');
    check(messageText(user?.data) === CLI_FOLLOW_UP, `${phase}: dsh's turn holds the user message ${JSON.stringify(messageText(user?.data))}`);
    const reply = dshEvents.find((event) => event.type === 'assistant/message');
    check(messageText(reply?.data?.message) === 'Stub reply 1: noted.', `${phase}: dsh's turn has no assistant message "Stub reply 1: noted."`);
    check(!dshEvents.some((event) => event.data?.source?.kind === 'session-reference'), `${phase}: dsh's turn carries a session-reference message`);
    out.between = between.map((event) => event.type);
    out.dshTurn = { turn: sessrefTurn + 1, shape: turnShape(dshEvents) };
    out.trailing = after.log.events.filter((event) => event.seq > dshEvents.at(-1).seq).map((event) => event.type);
    out.log = { events: after.log.events.length, frames: after.log.frames, lastSeq: after.log.events.at(-1).seq };

    // What the model got for dsh's turn: sessref's two messages, in order, before the new one.
    const request = stub.requests.slice(firstRequest).find((body) => !isTitleRequest(body));
    check(request !== undefined, `${phase}: the stub model received no chat request`);
    const texts = requestTexts(request);
    const readableAt = texts.indexOf(CLI_READABLE);
    check(readableAt >= 0, `${phase}: the model request for dsh's turn has no ${JSON.stringify(CLI_READABLE)}`);
    check(request.messages[readableAt + 1]?.role === 'user' && texts[readableAt + 1].includes('<referenced-sessions>'),
      `${phase}: the model request's message after sessref's readable one is not its snapshot`);
    check(texts.indexOf(CLI_FOLLOW_UP) > readableAt + 1, `${phase}: the model request does not carry the new message after sessref's two`);
    out.model = { roles: request.messages.map((message) => message.role) };
  } catch (error) {
    await page.screenshot({ path: failureShot }).catch(() => {});
    log(`${name}: failure screenshot ${failureShot}`);
    throw error;
  } finally {
    await context.close().catch(() => {});
    await web.handle.stop();
  }

  // The log still loads through dsh's own persistence package.
  const shown = await sessref(['show', sessionId]);
  check(shown.capturedThroughSeq === out.log.lastSeq, `${phase}: sessref show reads through seq ${shown.capturedThroughSeq}, the log ends at ${out.log.lastSeq}`);
  const shownTexts = (shown.conversation ?? []).map((item) => item.text);
  check(isDeepStrictEqual(shownTexts, [CLI_READABLE, CLI_FOLLOW_UP, 'Stub reply 1: noted.']),
    `${phase}: sessref show projects ${JSON.stringify(shownTexts)}`);
  out.show = { capturedThroughSeq: shown.capturedThroughSeq, title: shown.title, messages: shownTexts.length };
  out.timings.total = Date.now() - started;
  return out;
}

// ── comparison and summary ───────────────────────────────────────────────────
const withoutTime = (rows) => rows.map((row) => row.name.replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, '{{time}}'));

function compare(a, b) {
  const results = [];
  const same = (what, x, y) => {
    const equal = isDeepStrictEqual(x, y);
    results.push({ what, equal });
    return equal;
  };
  same('@ menu rows and order (empty query)', withoutTime(a.picker.allRows), withoutTime(b.picker.allRows));
  same(`@ menu rows (query "${SOURCE.filter}")`, withoutTime(a.picker.filteredRows), withoutTime(b.picker.filteredRows));
  same('mention text sent by the page', a.promptText, b.promptText);
  same('turn 1 event order', a.turn1.shape, b.turn1.shape);
  same('readable message', a.turn1.readableText, b.turn1.readableText);
  same('snapshot source (context message)', a.turn1.source, b.turn1.source);
  same('snapshot data (JSON array)', a.turn1.data, b.turn1.data);
  same('gateway candidates, good queries', [a.gateway.empty, a.gateway.oauth], [b.gateway.empty, b.gateway.oauth]);
  same('gateway refusal of non-string queries', [a.gateway.number, a.gateway.array], [b.gateway.number, b.gateway.array]);
  same('turn 2 event order', a.turn2, b.turn2);
  same('model request roles', a.model.roles, b.model.roles);
  same('CLI session: sessref turn event order', a.cli.sessrefTurn, b.cli.sessrefTurn);
  same('CLI session: where the sidebar lists it', a.cli.sidebar, b.cli.sidebar);
  same('CLI session: message the conversation shows', a.cli.uiMessage, b.cli.uiMessage);
  same('CLI session: events dsh wrote before its turn', a.cli.between, b.cli.between);
  same('CLI session: dsh turn event order', a.cli.dshTurn, b.cli.dshTurn);
  same('CLI session: model request roles', a.cli.model.roles, b.cli.model.roles);
  same('CLI session: title after dsh', a.cli.show.title, b.cli.show.title);
  const textSame = a.turn1.text === b.turn1.text;
  let firstDifference;
  if (!textSame) {
    const left = a.turn1.text.split('\n');
    const right = b.turn1.text.split('\n');
    const line = left.findIndex((text, index) => text !== right[index]);
    const at = line < 0 ? left.length : line;
    firstDifference = { line: at + 1, [a.name]: left[at] ?? '(end)', [b.name]: right[at] ?? '(end)' };
  }
  return { results, textSame, firstDifference };
}

function table(rows) {
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => String(row[column]).length)));
  return rows.map((row) => row.map((cell, column) => String(cell).padEnd(widths[column])).join('  ').trimEnd()).join('\n');
}

function summary(phases, comparison, install, skipped) {
  const lines = [];
  const [a, b] = phases;
  const col = (fn) => phases.map((phase) => fn(phase));
  const rows = [['', ...phases.map((phase) => phase.name)]];
  rows.push(['--dump-config rows', ...col((p) => p.rows.join('; '))]);
  rows.push(['running entries', ...col((p) => p.inventory.join(', '))]);
  rows.push(['@ menu (empty query)', ...col((p) => `${p.picker.allRows.length} sessions, first ${p.picker.allRows[0].name.split(' · ')[1]}`)]);
  rows.push([`@ menu (query "${SOURCE.filter}")`, ...col((p) => `${p.picker.filteredRows.length}: ${p.picker.selected.split(' · ')[1]}`)]);
  const messages = (shape) => shape.filter((type) => /message/.test(type))
    .map((type) => type.replace(/^user\/message\((.*)\)$/, '$1').replace(/^plugin:.*/, 'plugin').replace('assistant/message', 'reply')).join(' > ');
  rows.push(['turn 1 messages (log)', ...col((p) => messages(p.turn1.shape))]);
  rows.push(['snapshot', ...col((p) => `${p.turn1.messages} messages, capturedThroughSeq ${p.turn1.source.references[0].capturedThroughSeq}, ${p.turn1.text.length} chars`)]);
  rows.push(['model request', ...col((p) => `readable, then snapshot (${p.model.roles.join(',')})`)]);
  rows.push(['gateway, query 42 / ["oauth"]', ...col((p) => (p.gateway.number.message === p.gateway.array.message ? 'both refused at the boundary' : 'refused'))]);
  rows.push(['turn 2 (plain)', ...col((p) => `${messages(p.turn2)}; log clean (${p.log.events} events)`)]);
  rows.push(['CLI session: sessref send', ...col((p) => `turn ${p.cli.sessrefTurn.turn} at seq ${p.cli.appendedSeqs.join(', ')}, ended interrupted`)]);
  rows.push(['CLI session: sidebar (2nd boot)', ...col((p) => `${p.cli.sidebar.group} > "${p.cli.sidebar.label}"; header "${CLI_TITLE}"`)]);
  rows.push(['CLI session: conversation', ...col((p) => `"${p.cli.uiMessage}" + Session recall row`)]);
  rows.push(['CLI session: dsh turn', ...col((p) => `turn ${p.cli.dshTurn.turn} completed: ${messages(p.cli.dshTurn.shape)}`)]);
  rows.push(['CLI session: dsh wrote first', ...col((p) => p.cli.between.join(', ') || 'nothing')]);
  rows.push(['CLI session: log', ...col((p) => `${p.cli.log.events} events, seq 0-${p.cli.log.lastSeq}, ${p.cli.log.frames} frames, clean`)]);
  rows.push(['CLI session: sessref show', ...col((p) => `exit 0, through seq ${p.cli.show.capturedThroughSeq}, ${p.cli.show.messages} messages`)]);
  rows.push(['browser console errors', ...col((p) => `${p.consoleErrors}, CLI session ${p.cli.consoleErrors}`)]);
  rows.push(['timings', ...col((p) => `boot ${seconds(p.timings.boot)}${p.timings.pluginAdd ? `, plugin add ${seconds(p.timings.pluginAdd)}` : ''}, CLI session ${seconds(p.cli.timings.total)} (sessref ${seconds(p.cli.timings.cli)}, 2nd boot ${seconds(p.cli.timings.boot)}), phase ${seconds(p.timings.total)}`)]);
  lines.push(table(rows));
  if (comparison !== undefined) {
    lines.push('', `${a.name} vs ${b.name}:`);
    lines.push(table(comparison.results.map((result) => [result.equal ? 'same' : 'DIFFERENT', result.what])));
    lines.push(`${comparison.textSame ? 'same' : 'differs'}  snapshot message text, byte for byte (wording is free; informational)`);
    if (comparison.firstDifference !== undefined) {
      const { line, ...texts } = comparison.firstDifference;
      lines.push(`      first different line (${line}): ${Object.entries(texts).map(([name, text]) => `${name} ${JSON.stringify(text.slice(0, 90))}`).join(' / ')}`);
    }
  }
  if (skipped !== undefined) lines.push('', `phase 2 (sessref) SKIPPED: ${skipped}`);
  lines.push('', `install: ${install.installed ? `made in ${seconds(install.ms)}` : 'cached'} (${CACHE_DIR}); total ${seconds(Date.now() - started)}`);
  lines.push(`screenshots: ${phases.map((p) => SHOTS.map((shot) => `docs/dsh-app-${p.name}-${shot}.png`).join(', ')).join(', ')}`);
  return lines.join('\n');
}

/** The foreign phase's lines: where the Claude Code session was listed, and what reached the target. */
function foreignSummary(phase) {
  const rows = [
    ['', phase.name],
    ['--dump-config rows', phase.rows.join('; ')],
    ['cited', `${phase.cited.id} (Claude Code ${phase.cited.version}, ${phase.cited.made ? 'written by the CLI in this run' : 'cached from an earlier run of the CLI'}), cwd = the workspace`],
    ['@ menu (empty query)', `row ${phase.picker.at} of ${phase.picker.rows}, after every dsh session: "${phase.picker.row}"`],
    ['sent', JSON.stringify(phase.promptText)],
    ['snapshot', `${phase.turn1.messages} messages as Claude Code keeps them (its summary, the preserved reply, turn 3), capturedThroughSeq ${phase.turn1.source.references[0].capturedThroughSeq}, framing as the dsh source's`],
    ['model request', `readable, then snapshot (${phase.model.roles.join(',')})`],
    ['browser console errors', String(phase.consoleErrors)],
    ['timings', `boot ${seconds(phase.timings.boot)}, plugin add ${seconds(phase.timings.pluginAdd)}, phase ${seconds(phase.timings.total)}`],
  ];
  return `\n${table(rows)}\nscreenshots: ${FOREIGN_SHOTS.map((shot) => `docs/dsh-app-${phase.name}-${shot}.png`).join(', ')}`;
}

// ── main ─────────────────────────────────────────────────────────────────────
async function main() {
  const major = Number(process.versions.node.split('.')[0]);
  check(major >= 22 && typeof zlib.zstdDecompressSync === 'function',
    `Node ${process.version} cannot run this test: run it as npm run test:dsh-app (Node 22 from the node@22 devDependency)`);
  const install = await ensureInstall({ log });
  if (install.installed) log(`install: done in ${seconds(install.ms)}${install.addedPeers.length ? ` (added peers: ${install.addedPeers.join(', ')})` : ''}`);
  if (FLAGS.has('--install-only')) {
    process.stdout.write(`dsh-app: install ${install.installed ? `made in ${seconds(install.ms)}` : 'already current'} (${CACHE_DIR})\n`);
    return;
  }
  // The foreign phase's session, made once by the real Claude Code (test:agents' install, driver, fake model and
  // namespace), then cached; like the installs, outside the run's time bound.
  let claude = FLAGS.has('--official-only') || FLAGS.has('--no-agents') ? undefined
    : await stage('the Claude Code session', () => ensureClaudeSession({ log }));
  if (claude?.made) log(`Claude Code ${claude.version} wrote session ${claude.nativeId} in ${seconds(claude.ms)} (${claude.isolation})`);
  const deadline = Date.now() + HARD_TIMEOUT_MS;
  const hardTimer = setTimeout(() => {
    process.stdout.write(`dsh-app: FAIL hard timeout: the run took longer than ${HARD_TIMEOUT_MS / 60_000} minutes (install excluded)\n`);
    killAllSync();
    process.exit(1);
  }, HARD_TIMEOUT_MS);

  const runRoot = mkdtempSync(join(tmpdir(), 'sessref-dsh-app-'));
  const workspace = join(runRoot, 'workspace');
  mkdirSync(workspace, { recursive: true });
  mkdirSync(DOCS, { recursive: true });
  let stub;
  let browser;
  let ok = false;
  try {
    const built = await buildAndPack();
    let skipped;
    if (built.tarball === undefined && !FLAGS.has('--official-only')) {
      check(!built.broken && !FLAGS.has('--require-sessref'), `phase 2 cannot run: ${built.why}`);
      skipped = built.why;
    }
    if (FLAGS.has('--official-only')) skipped = '--official-only';
    if (skipped !== undefined) claude = undefined;
    stub = await startStubModel({ answer: stubAnswer });
    browser = await launchBrowser();
    const context = { runRoot, workspace, stub, browser };
    const phases = [await runPhase('official', context)];
    if (skipped === undefined) phases.push(await runPhase('sessref', { ...context, tarball: built.tarball }));
    const comparison = phases.length === 2 ? compare(phases[0], phases[1]) : undefined;
    process.stdout.write(`\n${summary(phases, comparison, install, skipped)}\n`);
    const different = comparison?.results.filter((result) => !result.equal) ?? [];
    check(different.length === 0, `sessref differs from the official plugin in: ${different.map((result) => result.what).join('; ')}`);
    const foreign = claude === undefined ? undefined
      : await foreignPhase('foreign', { ...context, tarball: built.tarball, claude, dshFraming: phases[1].turn1.framing });
    process.stdout.write(`${foreign === undefined ? `\nforeign phase SKIPPED: ${skipped ?? '--no-agents'}` : foreignSummary(foreign)}\n`);
    check(Date.now() < deadline, 'hard timeout');
    // Screenshots reach docs/ only from a passing run.
    const shots = [...phases.flatMap((phase) => SHOTS.map((shot) => `dsh-app-${phase.name}-${shot}.png`)),
      ...(foreign === undefined ? [] : FOREIGN_SHOTS.map((shot) => `dsh-app-${foreign.name}-${shot}.png`))];
    for (const shot of shots) copyFileSync(join(runRoot, shot), join(DOCS, shot));
    process.stdout.write(`dsh-app: PASS${skipped === undefined ? '' : ' (official phase only)'}\n`);
    ok = true;
  } finally {
    clearTimeout(hardTimer);
    await browser?.close().catch(() => {});
    await stub?.close();
    await stopAll();
    if (ok && !FLAGS.has('--keep')) rmSync(runRoot, { recursive: true, force: true });
    else log(`kept ${runRoot}`);
  }
}

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    process.stdout.write(`dsh-app: FAIL interrupted by ${signal}\n`);
    killAllSync();
    process.exit(130);
  });
}
process.on('exit', () => killAllSync());

main().then(() => process.exit(0), (error) => {
  const reason = error instanceof Failure ? error.message : `${error?.name ?? 'Error'}: ${String(error?.message ?? error).split('\n')[0]}`;
  process.stdout.write(`dsh-app: FAIL ${reason}\n`);
  if (!(error instanceof Failure) && error?.stack) log(error.stack.split('\n').slice(0, 6).join('\n'));
  process.exit(1);
});
