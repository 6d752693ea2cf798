import { extractReferencedSessionsJson } from '@sessref/core';

/**
 * Text Claude Code writes into a `user` record that the user did not type:
 * what a slash command, its output, a `!` shell command, an interrupt, a
 * hook or an IDE put there. Markers are matched on a whole text block,
 * leading and trailing white space aside.
 */
const OPENING_MARKERS: readonly string[] = [
  // A slash command and what it printed (`/model`, `/compact`, a plugin's `/x:y args`).
  '<command-name>',
  '<command-message>',
  '<command-args>',
  '<local-command-stdout>',
  '<local-command-stderr>',
  '<local-command-caveat>',
  // `!` shell mode.
  '<bash-input>',
  '<bash-stdout>',
  '<bash-stderr>',
  // Interrupts: `[Request interrupted by user]`, `… for tool use]`.
  '[Request interrupted by user',
  // Hooks and loops the agent runs itself.
  '<session-start-hook>',
  '<tick>',
  '<goal>',
];

/** Tags that mark injected context when they wrap a whole block (an IDE's open file or selection, a reminder). */
const WRAPPING_TAGS: readonly string[] = ['ide_opened_file', 'ide_selection', 'system-reminder'];

/**
 * Whether a text block of a `user` record is something other than what the
 * user typed: a marker above, a block naming a slash command anywhere, or
 * a referenced-sessions snapshot that another reference pasted in (the
 * core's own frame, so one session's snapshot never passes on as another's
 * user text).
 */
export function isInjectedText(text: string): boolean {
  const trimmed = text.trim();
  if (OPENING_MARKERS.some((marker) => trimmed.startsWith(marker))) return true;
  if (WRAPPING_TAGS.some((tag) => trimmed.startsWith(`<${tag}>`) && trimmed.endsWith(`</${tag}>`))) return true;
  return trimmed.includes('<command-name>') || extractReferencedSessionsJson(text) !== undefined;
}
