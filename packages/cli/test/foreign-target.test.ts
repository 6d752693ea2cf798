/**
 * `--target` with another agent's session (#35, item 6): `show` displays
 * it, so `list --target`, `search --target` and `prepare --target` must not
 * call it "not found". They refuse it up front as a usage error (exit 1) in
 * their own words, with what to do instead: target a dsh session of the
 * root and cite this one from it. The home holds one Claude Code transcript
 * from `../shared`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLAUDE_ID, demoRootAndClaudeHome } from './claude-home';
import { expectFailure, ok, removeTemps, sessref } from './support';

let root: string;
let env: Record<string, string>;

beforeAll(async () => {
  const { root: demo, home } = await demoRootAndClaudeHome();
  root = demo;
  env = { HOME: home };
});

afterAll(removeTemps);

describe("--target with another agent's session", () => {
  it('is shown by show, and refused as a target in words that fit each command, with the way forward', async () => {
    await ok(['show', CLAUDE_ID, '--root', root], { env });
    const refusal = `--target ${CLAUDE_ID} is a Claude Code session, read in place: --target names the dsh session of the root a message is written in`;
    for (const [command, rest] of [['list', []], ['search', ['mock']], ['prepare', ['hello']]] as const) {
      const result = await sessref([command, ...rest, '--target', CLAUDE_ID, '--root', root], { env });
      expect(expectFailure(result, 1, 'USAGE'), command).toBe(refusal);
      expect(result.stderr).toContain(`(fix: target a dsh session and cite this one from it, e.g. sessref ${command} `);
      expect(result.stderr).toContain(`$(sessref mention ${CLAUDE_ID})`);
    }
  });
});
