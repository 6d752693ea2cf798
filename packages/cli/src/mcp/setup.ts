/** How each client adds sessref: what `sessref mcp --help` shows and the README repeats. */

/**
 * The command every client starts: the installed sessref (global or the
 * project's), through npx. `--no-install` because `sessref` unscoped is not
 * our name on the registry: without it npx, when sessref is not installed,
 * would fetch whatever package has that name and, with no terminal to ask
 * on, run it.
 */
const LAUNCH = ['npx', '--no-install', 'sessref', 'mcp'] as const;

/** One setup command per client that has one. */
export const SETUP_COMMANDS: readonly string[] = [
  `claude mcp add sessref -- ${LAUNCH.join(' ')}`,
  `gemini mcp add sessref ${LAUNCH.join(' ')}`,
  `code --add-mcp '${JSON.stringify({ name: 'sessref', command: LAUNCH[0], args: LAUNCH.slice(1) })}'`,
];

/** opencode has no add command: the entry its opencode.json takes under "mcp". */
export const OPENCODE_ENTRY = JSON.stringify({ sessref: { type: 'local', command: LAUNCH } });

/** Resources per `resources/list` page when `--limit` is not given. */
export const DEFAULT_PAGE_SIZE = 50;
