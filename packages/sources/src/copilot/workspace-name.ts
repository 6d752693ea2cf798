import { oneLine } from '../surface.js';

/**
 * The `name` of a Copilot CLI `workspace.yaml`, on one line, or `undefined`
 * when it has none or a blank one. Copilot writes the file with the `yaml`
 * package's `stringify`, a flat map of scalars; a long or multi-line name
 * comes out folded onto indented lines, quoted, or as a block scalar. Only
 * that top-level key is read: its value with every more-indented line after
 * it, the quotes of a quoted scalar undone and a block scalar's lines joined,
 * which is the name on one line. Anything else in the file is ignored.
 */
export function workspaceName(text: string): string | undefined {
  const lines = text.split(/\r?\n/);
  const at = lines.findIndex((line) => line.startsWith('name:'));
  if (at < 0) return undefined;
  const rest = lines.slice(at + 1);
  const more = rest.findIndex((line) => line.trim() !== '' && !/^\s/.test(line));
  const value = [lines[at]!.slice('name:'.length), ...(more < 0 ? rest : rest.slice(0, more))].map((line) => line.trim()).join(' ').trim();
  const name = oneLine(unquoted(value));
  return name === '' ? undefined : name;
}

/** A scalar's text: single quotes (`''` is one quote), double quotes (JSON-like escapes), a block scalar's header dropped, else as written. */
function unquoted(value: string): string {
  if (value.length >= 2 && value.startsWith("'") && value.endsWith("'")) return value.slice(1, -1).replaceAll("''", "'");
  if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) return doubleQuoted(value);
  const block = /^[|>][-+0-9]*(?:\s|$)/.exec(value);
  return block === null ? value : value.slice(block[0].length);
}

function doubleQuoted(value: string): string {
  try {
    return JSON.parse(value.replaceAll('\\ ', ' ')) as string;
  } catch {
    return value.slice(1, -1).replace(/\\(.)/g, '$1');
  }
}
