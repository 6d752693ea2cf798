/**
 * The agents whose sessions sessref reads in place: one row each, exported
 * by the agent's folder (`<agent>/agent.ts`). This is the one list of them.
 * `--sources`, the dsh plugin's `sources` option (`all` is every row), help
 * texts, the listings and the readers (`local.ts`) read it. To add an agent:
 * this package's README, "Adding an agent".
 *
 * No reader is loaded here: this module is what a command's help loads
 * (`@sessref/sources/agents`), so the rows import only path helpers, and
 * each reader is loaded when a command first reads that agent's sessions.
 * @module @sessref/sources/agents
 */
import type { AgentRow } from './agent-row.js';
import { claudeCodeAgent } from './claude-code/agent.js';
import { clineAgent } from './cline/agent.js';
import { codexAgent } from './codex/agent.js';
import { continueAgent } from './continue/agent.js';
import { copilotAgent } from './copilot/agent.js';
import { factoryDroidAgent } from './factory-droid/agent.js';
import { geminiCliAgent } from './gemini-cli/agent.js';
import { kiloAgent } from './kilo/agent.js';
import { openclawAgent } from './openclaw/agent.js';
import { opencodeAgent } from './opencode/agent.js';
import { piAgent } from './pi/agent.js';
import { qwenCodeAgent } from './qwen-code/agent.js';

export { mirroredPaths } from './agent-row.js';

/** Every agent, in listing order. */
const ROWS = [claudeCodeAgent, codexAgent, geminiCliAgent, opencodeAgent, kiloAgent, piAgent, qwenCodeAgent, copilotAgent, clineAgent, factoryDroidAgent, continueAgent, openclawAgent] as const;

/** An agent's provenance name: the `--sources` word, and the prefix of its session ids (`codex:<id>`). */
export type AgentName = (typeof ROWS)[number]['name'];

/** Every agent's provenance name, in listing order. */
export const AGENT_NAMES: readonly AgentName[] = ROWS.map((row) => row.name);

/** Each agent's row, by provenance name. */
export const AGENTS = Object.fromEntries(ROWS.map((row) => [row.name, row])) as { readonly [Name in AgentName]: AgentRow<Name> };

/** Whether `name` is one of {@link AGENT_NAMES}. */
export function isAgentName(name: string): name is AgentName {
  return Object.hasOwn(AGENTS, name);
}
