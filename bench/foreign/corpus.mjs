/**
 * The suite-6 corpus: a temporary HOME holding sessions of every agent
 * sessref reads, each agent's share (plan.mjs, FOREIGN_LIST.shares) written
 * by its writer in the agent's own shape and place. Written once and kept:
 * a marker file records what it holds.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { random } from '../lib/text.mjs';
import { writeCline, writeContinue } from './json.mjs';
import { writeClaudeCode, writeCodex, writeCopilot, writeFactoryDroid, writeGeminiCli, writePi, writeQwenCode } from './jsonl.mjs';
import { writeOpenclaw } from './openclaw.mjs';
import { homeWriter } from './records.mjs';
import { writeKilo, writeOpencode } from './sqlite.mjs';

/**
 * Each agent's writer and where it puts a session under HOME, by the agent's
 * `--sources` name. An agent of the table without one here is left out of
 * the corpus, and the report says so.
 */
const WRITERS = {
  'claude-code': { write: writeClaudeCode, place: '.claude/projects/<cwd>/<id>.jsonl' },
  codex: { write: writeCodex, place: '.codex/sessions/<y>/<m>/<d>/rollout-….jsonl, a quarter in archived_sessions/ as .jsonl.zst' },
  'gemini-cli': { write: writeGeminiCli, place: '.gemini/tmp/<project>/chats/session-….jsonl' },
  opencode: { write: writeOpencode, place: '.local/share/opencode/opencode.db (SQLite)' },
  kilo: { write: writeKilo, place: '.local/share/kilo/kilo.db (SQLite)' },
  pi: { write: writePi, place: '.pi/agent/sessions/--<cwd>--/<time>_<id>.jsonl' },
  'qwen-code': { write: writeQwenCode, place: '.qwen/projects/<cwd>/chats/<id>.jsonl' },
  copilot: { write: writeCopilot, place: '.copilot/session-state/<id>/events.jsonl and workspace.yaml' },
  cline: { write: writeCline, place: '.cline/data/sessions/<id>/<id>.json and <id>.messages.json' },
  'factory-droid': { write: writeFactoryDroid, place: '.factory/sessions/<cwd>/<id>.jsonl and <id>.settings.json' },
  continue: { write: writeContinue, place: '.continue/sessions/<id>.json and the sessions.json index' },
  openclaw: { write: writeOpenclaw, place: '.openclaw/agents/main/agent/openclaw-agent.sqlite (SQLite)' },
};

/**
 * The corpus under `home` with `shares` sessions per agent, written unless a
 * complete one is there: each agent from its own seeded random source, so
 * its sessions do not change when another agent's share does.
 */
export function writeCorpus(home, shares) {
  const done = join(home, '.complete');
  if (existsSync(done)) return { ...JSON.parse(readFileSync(done, 'utf8')), reused: true };
  rmSync(home, { recursive: true, force: true });
  const agents = {};
  let total = 0;
  let bytes = 0;
  Object.entries(shares).forEach(([name, count], index) => {
    const files = homeWriter(home);
    const started = performance.now();
    WRITERS[name].write(files, count, random(20261203 + index));
    agents[name] = { sessions: count, bytes: files.bytes, writeMs: performance.now() - started, place: WRITERS[name].place };
    total += count;
    bytes += files.bytes;
  });
  const corpus = { total, bytes, agents };
  writeFileSync(done, JSON.stringify(corpus));
  return { ...corpus, reused: false };
}
