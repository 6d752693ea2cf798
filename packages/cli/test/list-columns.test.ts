/**
 * `sessref list` on a terminal narrower than its table (#35, item 4): what
 * repeats gives way before a title is cut. The SOURCE column goes when every
 * id already names its source, then the ids shrink (to 24 columns), and only
 * then are titles and paths cut; `--json` keeps every id whole. The root is
 * the demo root; the home holds one Claude Code transcript from `../shared`,
 * whose id is 48 characters long.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../src/cli';
import { displayWidth } from '../src/output';
import { CLAUDE_ID, demoRootAndClaudeHome } from './claude-home';
import { NO_DSH_HOME, removeTemps, tempDir } from './support';

let root: string;
let env: Record<string, string>;

beforeAll(async () => {
  const { root: demo, home } = await demoRootAndClaudeHome();
  root = demo;
  env = { NO_COLOR: '1', HOME: home, DSH_HOME: NO_DSH_HOME, SESSREF_CACHE_DIR: await tempDir('sessref-list-columns-cache-') };
  // The engine finds the agents' homes from the process's own HOME (this file has its own process).
  process.env.HOME = home;
  delete process.env.CLAUDE_CONFIG_DIR;
});

afterAll(removeTemps);

/** `sessref list ...argv` in process, stdout a terminal `columns` wide. */
async function list(argv: readonly string[], columns: number): Promise<string[]> {
  let stdout = '';
  const stream = (terminal: boolean, append: (text: string) => void) =>
    ({ isTTY: terminal, ...(terminal ? { columns } : {}), write: (text: string) => (append(text), true) }) as unknown as NodeJS.WritableStream;
  const code = await main(['list', ...argv, '--root', root], { stdout: stream(true, (text) => (stdout += text)), stderr: stream(false, () => {}), env });
  expect(code).toBe(0);
  return stdout.trimEnd().split('\n');
}

describe('sessref list on a 100-column terminal', () => {
  it('leaves out the SOURCE the ids already say and shrinks the ids before any title is cut', async () => {
    const lines = await list([], 100);
    expect(Math.max(...lines.map(displayWidth))).toBeLessThanOrEqual(100);
    expect(lines[0]).toMatch(/^ID +TITLE +CWD +AGE$/);
    expect(lines.find((line) => line.startsWith('pasted-issue'))).toMatch(/^pasted-issue +Triage a pasted bug report \(untrusted\) +\/home\/dev\/webapp +\d+h ago$/);
    // The id cut to its agent and the start of its own, the title whole, the path's end kept.
    expect(lines.find((line) => line.startsWith('claude-code:'))).toMatch(/^claude-code:ae4a77f8-ae… {2}Claude Code · continue implementation {3}…\S*spotter-4te {2}\d+d ago$/);
  });

  it('keeps SOURCE and whole ids on a terminal wide enough for them', async () => {
    const wide = await list([], 200);
    expect(wide[0]).toMatch(/^ID +SOURCE +TITLE +CWD +AGE$/);
    expect(wide.find((line) => line.startsWith(CLAUDE_ID))).toMatch(new RegExp(`^${CLAUDE_ID} +claude-code +`));
  });

  it('keeps every id whole under --json', async () => {
    const rows = JSON.parse((await list(['--json'], 100)).join('\n')) as { sessionId: string }[];
    expect(rows.map((row) => row.sessionId)).toContain(CLAUDE_ID);
  });
});
