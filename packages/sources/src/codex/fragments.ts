/**
 * What Codex itself puts in user-role messages besides what the user typed,
 * told apart the way Codex does (codex-rs/core/src/contextual_user_message.rs,
 * `CONTEXTUAL_USER_FRAGMENTS`; codex-rs/core/src/compact.rs,
 * `is_summary_message`).
 */

/** The opening words of Codex's compaction hand-off (`core/templates/compact/summary_prefix.md`), on one line before the summary. */
const SUMMARY_OPENING = 'Another language model started to solve this problem';

/** The one fragment that is not a tag: a project's instructions, between this heading and `</INSTRUCTIONS>`. */
const AGENTS_MD_OPENING = '# agents.md instructions for ';
const AGENTS_MD_CLOSING = '</instructions>';

/** How far into a text its opening tag is looked for: tag names are short. */
const OPENING_TAG_WINDOW = 128;
const OPENING_TAG = /^<([a-z_][\w-]*)[\s>]/i;
/** A text that is nothing but one tag, such as the `<image>` and `</image>` around a pasted image. */
const LONE_TAG = /^<\/?[a-z_][\w-]*(?:\s[^<>]*)?>$/i;

/**
 * Whether a user-role text is context Codex injected: a block wrapped in one
 * tag from start to end (`<environment_context>`, `<user_instructions>`,
 * `<skill>`, `<user_shell_command>`, `<turn_aborted>`,
 * `<subagent_notification>`, `<additional_context>`, hook prompts, and any
 * such wrapper a later Codex adds), or AGENTS.md instructions. Codex matches
 * its own list of tags, case-insensitively; any whole-text wrapper is taken
 * here so that a tag Codex adds later is never carried as the user's words,
 * at the price of a user message that is itself one tagged block.
 */
export function isInjectedContext(text: string): boolean {
  const trimmed = text.trim();
  const lower = trimmed.slice(0, OPENING_TAG_WINDOW).toLowerCase();
  if (lower.startsWith(AGENTS_MD_OPENING)) return endsWithIgnoringCase(trimmed, AGENTS_MD_CLOSING);
  const tag = OPENING_TAG.exec(lower)?.[1];
  return tag !== undefined && endsWithIgnoringCase(trimmed, `</${tag}>`);
}

/** Whether a text is a lone opening or closing tag: markup around a non-text item, never words. */
export function isLoneTag(text: string): boolean {
  const trimmed = text.trim();
  return trimmed.length <= OPENING_TAG_WINDOW && LONE_TAG.test(trimmed);
}

/**
 * The summary inside Codex's compaction hand-off (its fixed first line
 * dropped: that is Codex's instruction to its model, not the summary), or
 * `undefined` when `text` is not one.
 */
export function summaryIn(text: string): string | undefined {
  if (!text.startsWith(SUMMARY_OPENING)) return undefined;
  const newline = text.indexOf('\n');
  return newline < 0 ? '' : text.slice(newline + 1);
}

/** The working directory an `<environment_context>` block names, if any: legacy rollouts keep it nowhere else. */
export function cwdIn(text: string): string | undefined {
  if (!text.trimStart().slice(0, OPENING_TAG_WINDOW).toLowerCase().startsWith('<environment_context')) return undefined;
  const start = text.indexOf('<cwd>');
  const end = text.indexOf('</cwd>', start);
  if (start < 0 || end < 0) return undefined;
  const cwd = text.slice(start + '<cwd>'.length, end).trim();
  return cwd === '' ? undefined : cwd;
}

function endsWithIgnoringCase(text: string, ending: string): boolean {
  return text.slice(-ending.length).toLowerCase() === ending;
}
