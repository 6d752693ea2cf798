/** How each client adds sessref: what `sessref mcp --help` shows and the README repeats. */

/**
 * The command every client starts: the installed sessref (global or the
 * project's), through npx. `--no-install` because `sessref` unscoped is not
 * our name on the registry: without it npx, when sessref is not installed,
 * would fetch whatever package has that name and, with no terminal to ask
 * on, run it.
 */
const LAUNCH = ['npx', '--no-install', 'sessref', 'mcp'] as const;

/**
 * Gemini CLI's `mcp add` reads every `--flag` on its line as its own, so
 * `--no-install` would never reach npx: its line sets the same refusal as
 * npm's own setting in the server's environment instead (last, since `-e`
 * takes every word after it).
 */
const GEMINI_LAUNCH = `${LAUNCH.filter((word) => !word.startsWith('--')).join(' ')} -e npm_config_yes=false`;

/**
 * Qwen Code's `mcp add` hands every `--flag` it does not know to the server
 * (0.24.4), so `--no-install` reaches npx as in Claude Code's line.
 * `--scope project` because its default scope is the user's settings, which
 * every project then starts sessref from.
 */
const QWEN_SETUP = `qwen mcp add --scope project sessref ${LAUNCH.join(' ')}`;

/** One setup command per client that has one. */
export const SETUP_COMMANDS: readonly string[] = [
  `claude mcp add sessref -- ${LAUNCH.join(' ')}`,
  `gemini mcp add sessref ${GEMINI_LAUNCH}`,
  QWEN_SETUP,
  `code --add-mcp '${JSON.stringify({ name: 'sessref', command: LAUNCH[0], args: LAUNCH.slice(1) })}'`,
];

/** opencode has no add command: the entry its opencode.json takes under "mcp". */
export const OPENCODE_ENTRY = JSON.stringify({ sessref: { type: 'local', command: LAUNCH } });

/** Resources per `resources/list` page when `--limit` is not given. */
export const DEFAULT_PAGE_SIZE = 50;
