/**
 * The agents whose sessions sessref reads in place: one row each. This is
 * the one list of them. `--sources`, the dsh plugin's `sources` option
 * (`all` is every row), help texts and the listings read it; the readers
 * behind the rows are keyed by {@link AgentName} in `local.ts`, so a row
 * without a reader does not compile. To add an agent: this package's
 * README, "Adding an agent".
 *
 * No reader is imported here: this module is what a command's help loads
 * (`@sessref/sources/agents`), and the readers are loaded when a command
 * reads sessions.
 * @module @sessref/sources/agents
 */

/** What the rest of sessref knows of an agent without reading its sessions. */
interface AgentFacts {
  /** How labels and notes name it (`Claude Code · <title>`). */
  readonly displayName: string;
  /**
   * The environment variables that move its folder, as the agent reads them;
   * without them it lives at its default under the home. A root inside
   * either place is refused to commands that write (`agentFolders`).
   */
  readonly movedBy: readonly string[];
}

/** Keyed by provenance name: the `--sources` word, and the prefix of the agent's session ids (`codex:<id>`). In listing order. */
export const AGENTS = {
  'claude-code': { displayName: 'Claude Code', movedBy: ['CLAUDE_CONFIG_DIR'] },
  codex: { displayName: 'Codex', movedBy: ['CODEX_HOME'] },
  'gemini-cli': { displayName: 'Gemini CLI', movedBy: ['GEMINI_CLI_HOME'] },
  opencode: { displayName: 'opencode', movedBy: ['XDG_DATA_HOME'] },
  kilo: { displayName: 'Kilo', movedBy: ['XDG_DATA_HOME'] },
  pi: { displayName: 'pi', movedBy: ['PI_CODING_AGENT_DIR'] },
  'qwen-code': { displayName: 'Qwen Code', movedBy: ['QWEN_HOME', 'QWEN_RUNTIME_DIR'] },
  copilot: { displayName: 'Copilot CLI', movedBy: ['COPILOT_HOME'] },
  cline: { displayName: 'Cline', movedBy: ['CLINE_DIR', 'CLINE_DATA_DIR', 'CLINE_SESSION_DATA_DIR'] },
  'factory-droid': { displayName: 'Factory Droid', movedBy: ['FACTORY_HOME_OVERRIDE'] },
  continue: { displayName: 'Continue', movedBy: ['CONTINUE_GLOBAL_DIR'] },
} as const satisfies Record<string, AgentFacts>;

export type AgentName = keyof typeof AGENTS;

/** Every agent's provenance name, in {@link AGENTS} order. */
export const AGENT_NAMES = Object.keys(AGENTS) as readonly AgentName[];

/** Whether `name` is one of {@link AGENT_NAMES}. */
export function isAgentName(name: string): name is AgentName {
  return Object.hasOwn(AGENTS, name);
}
