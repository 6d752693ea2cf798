/**
 * A Claude Code session the real Claude Code CLI wrote, for the phase that
 * cites another agent's session in `dsh web`. Made once, with test:agents'
 * own pieces (the pinned install in `.cache/agents`, its Claude Code driver
 * and script, its fake model, its loopback-only network namespace), and kept
 * in `.cache/dsh-app/claude-code/`: `home/.claude/projects/<folder>/<id>.jsonl`
 * and `session.json` (version, id, transcript, the session's cwd). Remade
 * when missing or made by another Claude Code version.
 *
 * The session's cwd is `work/` in that folder, so the phase can connect the
 * same folder as its dsh workspace: a foreign session in the target's own
 * folder is the one a ranking by cwd alone would put first.
 *
 * Run as a script with `--make=<netns|none>`, it is the part that runs inside
 * the namespace: the fake model on 127.0.0.1 and the four Claude Code steps.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { DRIVERS, script } from '../../agents/lib/agents.mjs';
import { startFakeModel } from '../../agents/lib/fake-model.mjs';
import { AGENTS, ensureInstall } from '../../agents/lib/install.mjs';
import { detectIsolation, startDnsLogger, wrapped } from '../../agents/lib/isolation.mjs';
import { CACHE_DIR } from './install.mjs';
import { lastLines, run } from './proc.mjs';

const NAME = 'claude-code';
const FOLDER = join(CACHE_DIR, NAME);
const MANIFEST = join(FOLDER, 'session.json');
const WORK = join(FOLDER, 'work');
const HOME = join(FOLDER, 'home');
const MAKE_TIMEOUT_MS = 6 * 60_000;

/**
 * The conversation Claude Code itself keeps after the script's compaction
 * (as test:agents states it): its summary message holding the fake model's
 * summary, the reply 2.1.332 preserves verbatim after it, then turn 3; and
 * the texts that must not be there: turn 1's reply, compacted away, and the
 * `/compact` command records. Its `-p` runs write no title record, so
 * sessref titles it by the first prompt of that conversation: turn 3's.
 */
export function claudeScript() {
  const { turns, summary } = script(NAME);
  return {
    title: turns[2].prompt,
    kept: [{ role: 'user', contains: summary }, { role: 'assistant', text: turns[1].reply }, { role: 'user', text: turns[2].prompt }, { role: 'assistant', text: turns[2].reply }],
    dropped: [turns[0].prompt, turns[0].reply, '<local-command', '<command-name>'],
  };
}

function cached() {
  if (!existsSync(MANIFEST)) return undefined;
  try {
    const manifest = JSON.parse(readFileSync(MANIFEST, 'utf8'));
    return manifest.version === AGENTS[NAME].version && existsSync(join(FOLDER, manifest.transcript)) ? manifest : undefined;
  } catch {
    return undefined;
  }
}

const described = (manifest, made) => ({
  ...manifest,
  made,
  /** The `projects` folder of the Claude Code home, to copy into a test's own HOME. */
  projects: join(HOME, '.claude', 'projects'),
  transcript: join(FOLDER, manifest.transcript),
});

/**
 * The cached session, made first when missing (the agents' install too).
 * @returns {Promise<{ version: string, nativeId: string, cwd: string, projects: string, transcript: string, made: boolean, isolation?: string, lookups?: string[], ms?: number }>}
 */
export async function ensureClaudeSession({ log }) {
  const ready = cached();
  if (ready !== undefined) return described(ready, false);
  const started = Date.now();
  const install = await ensureInstall({ log });
  const missing = install.error ?? install.problems[NAME];
  if (missing !== undefined) throw new Error(`Claude Code ${AGENTS[NAME].version} is not installed in .cache/agents: ${missing}${install.networkFailure ? ` (${install.networkFailure})` : ''}`);
  rmSync(FOLDER, { recursive: true, force: true });
  mkdirSync(WORK, { recursive: true });
  const isolation = await detectIsolation();
  const inner = [process.execPath, fileURLToPath(import.meta.url), `--make=${isolation.mode === 'none' ? 'none' : 'netns'}`];
  const [command, args] = isolation.mode === 'none' ? [inner[0], inner.slice(1)] : wrapped(isolation, inner);
  log(`Claude Code ${AGENTS[NAME].version}: writing a session (${isolation.mode === 'none' ? `no network namespace: ${isolation.reasons.join('; ')}` : `${isolation.mode}, loopback only`})`);
  const result = await run(command, args, { cwd: WORK, env: process.env, timeoutMs: MAKE_TIMEOUT_MS, label: 'Claude Code session' });
  const made = cached();
  if (result.timedOut || result.code !== 0 || made === undefined) {
    throw new Error(`the real Claude Code did not write its session (${result.timedOut ? 'timed out' : `exit ${result.code}`}): ${lastLines(`${result.stdout}\n${result.stderr}`, 4)}`);
  }
  return { ...described(made, true), isolation: isolation.mode, ms: Date.now() - started };
}

/** Inside the namespace: the fake model, Claude Code's four steps (a compaction among them), then the manifest. */
async function make(mode) {
  const log = (line) => process.stderr.write(`[claude-session] ${line}\n`);
  const dns = mode === 'netns' ? await startDnsLogger() : { error: 'no network namespace' };
  const { turns, summary } = script(NAME);
  let compacting = false;
  const model = await startFakeModel({
    answer: (request) => {
      if (compacting) return { text: `<analysis>The fake model read the conversation.</analysis>\n<summary>${summary}</summary>`, compaction: true };
      return { text: turns.find((turn) => request.text.includes(turn.prompt))?.reply ?? 'Fake model: nothing to add.' };
    },
  });
  const ctx = { name: NAME, home: HOME, work: WORK, modelUrl: model.url, log, steps: [], compacting: (on) => { compacting = on; } };
  try {
    const result = await DRIVERS[NAME].drive(ctx);
    writeFileSync(MANIFEST, `${JSON.stringify({
      version: AGENTS[NAME].version,
      nativeId: result.nativeId,
      transcript: relative(FOLDER, result.transcript),
      cwd: WORK,
      steps: ctx.steps.map((step) => step.label),
      lookups: 'lookups' in dns ? [...new Set(dns.lookups.map((lookup) => lookup.name))] : [],
    }, null, 1)}\n`);
  } finally {
    await model.close();
    if ('close' in dns) await dns.close();
  }
}

const makeMode = process.argv.slice(2).find((arg) => arg.startsWith('--make='))?.slice('--make='.length);
if (makeMode !== undefined && process.argv[1] === fileURLToPath(import.meta.url)) {
  make(makeMode).then(() => process.exit(0), (error) => {
    process.stderr.write(`[claude-session] ${error?.message ?? error}\n`);
    process.exit(1);
  });
}
