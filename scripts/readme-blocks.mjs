/**
 * The command blocks of the READMEs, so that every one is executed and the
 * docs cannot drift from the product.
 *
 * Two kinds of fenced block are commands:
 *
 * - a shell block (```sh, ```bash or ```shell): a script. scripts/readme-shell.mjs
 *   runs each one, verbatim, in a fresh clone (CI runs it after `npm test`);
 * - a transcript (a plain ``` block whose first line starts with `$ `):
 *   commands and the output they print. packages/cli/test/readme.test.ts
 *   runs each command against the demo root and compares the output.
 *
 * A block that cannot run there (it starts a long-running server, needs the
 * network or another program) says so in an HTML comment right above its
 * fence, which the rendered README does not show:
 *
 *   <!-- docs-test: skip: starts a long-running server -->
 *
 * A transcript that needs a particular root first (a damaged log, say) names
 * the shell command that makes it, run in the transcript's environment:
 *
 *   <!-- docs-test: before: truncate -s -40 "$SESSREF_ROOT/…/session.jsonl.zstd" -->
 *
 * Every other block (TypeScript, YAML, output alone) is not a command block.
 */
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';

const SHELL_LANGS = new Set(['sh', 'bash', 'shell']);
const MARKER = /^<!--\s*docs-test:\s*(skip|before):\s*(.*?)\s*-->$/;

/** The pages whose command blocks are executed: the root README, each package's, and the CLI's reference (docs/cli.md), relative to the repository root. */
export function readmes(root) {
  const packages = readdirSync(join(root, 'packages'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(root, 'packages', entry.name, 'README.md')))
    .map((entry) => `packages/${entry.name}/README.md`)
    .sort();
  // The CLI's full reference moved out of its README keeps every transcript tested.
  return ['README.md', ...packages, 'docs/cli.md'];
}

/**
 * The fenced blocks of a Markdown text: `{ line, lang, kind, body, skip?, before? }`,
 * `line` being the fence's 1-based line. `kind` is 'shell', 'transcript' or 'other'.
 * A malformed marker (an unknown word, a missing reason) throws.
 */
export function readBlocks(markdown) {
  const lines = markdown.split('\n');
  const blocks = [];
  for (let index = 0; index < lines.length; index++) {
    const open = /^(`{3,})([\w-]*)\s*$/.exec(lines[index]);
    if (open === null) continue;
    const fence = open[1];
    const lang = open[2];
    const body = [];
    let end = index + 1;
    while (end < lines.length && lines[end].trim() !== fence) body.push(lines[end++]);
    const block = { line: index + 1, lang, body: body.join('\n'), kind: kindOf(lang, body) };
    const marker = markerAbove(lines, index);
    if (marker !== undefined) {
      if (block.kind === 'other') throw new Error(`line ${marker.line}: a docs-test marker above a block that is not a command block`);
      block[marker.word] = marker.value;
    }
    blocks.push(block);
    index = end;
  }
  return blocks;
}

function kindOf(lang, body) {
  if (SHELL_LANGS.has(lang)) return 'shell';
  if (lang === '' && body[0]?.startsWith('$ ')) return 'transcript';
  return 'other';
}

/** The marker on the line right above a fence (one blank line between is allowed). */
function markerAbove(lines, fence) {
  for (const at of [fence - 1, fence - 2]) {
    const text = lines[at]?.trim();
    if (text === undefined) return undefined;
    if (text === '' && at === fence - 1) continue;
    if (!text.startsWith('<!--') || !text.includes('docs-test')) return undefined;
    const match = MARKER.exec(text);
    if (match === null || match[2] === '') throw new Error(`line ${at + 1}: malformed docs-test marker ${JSON.stringify(text)}`);
    return { line: at + 1, word: match[1], value: match[2] };
  }
  return undefined;
}

/**
 * A transcript's steps: each `$ command` with the output lines after it. A
 * command line ending in `\` continues on the next line.
 */
export function transcriptSteps(body) {
  const steps = [];
  const lines = body.split('\n');
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index];
    if (!line.startsWith('$ ')) {
      if (steps.length === 0) throw new Error(`transcript output before its first command: ${JSON.stringify(line)}`);
      steps.at(-1).output.push(line);
      continue;
    }
    let command = line.slice(2);
    while (command.endsWith('\\') && index + 1 < lines.length) command = `${command.slice(0, -1)}\n${lines[++index]}`;
    steps.push({ command, output: [] });
  }
  return steps;
}

/** Every README's blocks, read from the repository at `root`. */
export function allBlocks(root) {
  return readmes(root).map((file) => ({ file, blocks: readBlocks(readFileSync(join(root, file), 'utf8')) }));
}
