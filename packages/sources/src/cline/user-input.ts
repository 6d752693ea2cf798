/**
 * What the user typed, from a prompt as Cline stores it
 * (`formatDisplayUserInput`, `@cline/shared`): the `<user_input mode="…">`
 * and `<user_command>` wrappers taken off (`normalizeUserInput`), the notices
 * Cline adds (`<mode_notice>`, `<environment_notice>`) taken out, and a slash
 * command envelope (`<user_command slash="x">`) written back as `/x …`.
 * Every step scans forward with `indexOf`, so a hostile prompt (wrappers
 * that never close) costs one pass, not one per opening tag.
 */
export function displayUserInput(input: string): string {
  const normalized = withoutElements(withoutElements(unwrapped(unwrapped(input.trim(), 'user_input'), 'user_command'), 'mode_notice'), 'environment_notice').trim();
  const slash = commandSlash(input.trim());
  if (slash === undefined) return normalized;
  if (slash.toLowerCase() === 'team') {
    const prefix = 'spawn a team of agents for the following task:';
    const task = normalized.toLowerCase().startsWith(prefix) ? normalized.slice(prefix.length).trim() : normalized;
    return task === '' ? '/team' : `/team ${task}`;
  }
  return normalized === '' ? `/${slash}` : `/${slash} ${normalized}`;
}

/** Whether a stored prompt is wrapped as the user's input (what the CLI sends for a prompt or a command). */
export function isWrappedUserInput(text: string): boolean {
  const trimmed = text.trimStart();
  return trimmed.startsWith('<user_input') || trimmed.startsWith('<user_command');
}

/**
 * `normalizeUserInput`'s step for one tag: each `<tag …>inner</tag>` becomes
 * its inner text (`xmlTagsRemoval`); when there is none, every opening
 * `<tag…>` is dropped instead. Trimmed.
 */
function unwrapped(text: string, tag: string): string {
  const parts: string[] = [];
  let at = 0;
  for (let open = openingTag(text, tag, 0); open !== undefined; open = openingTag(text, tag, at)) {
    const close = text.indexOf(`</${tag}>`, open.end);
    if (close < 0) break;
    parts.push(text.slice(at, open.start), text.slice(open.end, close));
    at = close + tag.length + 3;
  }
  if (parts.length > 0) return (parts.join('') + text.slice(at)).trim();
  return droppedOpeningTags(text, tag).trim();
}

/** The next `<tag` followed by a non-word character, up to its `>`: where it starts and where its inner text starts. */
function openingTag(text: string, tag: string, from: number): { start: number; end: number } | undefined {
  for (let start = text.indexOf(`<${tag}`, from); start >= 0; start = text.indexOf(`<${tag}`, start + 1)) {
    const next = text.charAt(start + tag.length + 1);
    if (/\w/.test(next)) continue;
    const end = text.indexOf('>', start);
    return end < 0 ? undefined : { start, end: end + 1 };
  }
  return undefined;
}

/** Every `<tag…>` (any attributes, or none) taken out. */
function droppedOpeningTags(text: string, tag: string): string {
  const parts: string[] = [];
  let at = 0;
  for (let start = text.indexOf(`<${tag}`); start >= 0; start = text.indexOf(`<${tag}`, at)) {
    const end = text.indexOf('>', start);
    if (end < 0) break;
    parts.push(text.slice(at, start));
    at = end + 1;
  }
  return parts.join('') + text.slice(at);
}

/** Every `<tag>…</tag>` element taken out whole (`removeTagElements`); an unclosed one stays. */
function withoutElements(text: string, tag: string): string {
  const open = `<${tag}>`;
  const close = `</${tag}>`;
  const parts: string[] = [];
  let at = 0;
  for (let start = text.indexOf(open); start >= 0; start = text.indexOf(open, at)) {
    const end = text.indexOf(close, start + open.length);
    if (end < 0) break;
    parts.push(text.slice(at, start));
    at = end + close.length;
  }
  return parts.join('') + text.slice(at);
}

/** The `slash` of a prompt that is one `<user_command slash="…">…</user_command>` element (`parseUserCommandEnvelope`). */
function commandSlash(trimmed: string): string | undefined {
  const match = /^<user_command\b([^>]*)>[\s\S]*<\/user_command>$/i.exec(trimmed);
  return match === null ? undefined : /slash="([^"]+)"/i.exec(match[1] ?? '')?.[1]?.trim() || undefined;
}
