/**
 * Chat-habit input: `@flaky-ci` or `@Fix flaky CI` is not a reference. The
 * message goes through as written (nothing cited, nothing added), and
 * `prepare`/`send` print a hint on stderr naming the matching sessions and
 * the exact `sessref mention` command. The root is written by the real dsh
 * persistence (`sessref seed`, plus two sessions made with `new`). The
 * matching rules themselves are in hint-matching.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyRoot, emptyRoot, hashTree, json, logLines, ok, removeTemps, requireBuild, sessref } from './support';

let root: string;

beforeAll(async () => {
  requireBuild();
  root = await emptyRoot('sessref-hints-');
  await ok(['seed', '--root', root]);
  // Two sessions whose titles start alike, for an ambiguous hint.
  await ok(['new', '--root', root, '--title', 'Deploy staging hotfix', '--cwd', '/home/dev/webapp']);
  await ok(['new', '--root', root, '--title', 'Deploy staging rollback', '--cwd', '/home/dev/webapp']);
});

afterAll(removeTemps);

const HINT = (text: string, rest: string) => `hint "${text}" is plain text, not a session reference: the model gets it as written, with no snapshot. ${rest}`;

describe('prepare with chat-style @text', () => {
  it('sends nothing special, and hints at the session and the exact mention command', async () => {
    for (const text of ['@flaky-ci', '@Fix flaky CI']) {
      const message = `Summarize ${text} for the changelog`;
      const result = await sessref(['prepare', '--root', root, '--target', 'scratchpad', message]);
      expect(result.code).toBe(0);
      expect(result.stdout).toBe(`── message 1: user, readable message ──\n${message}\n\nno session references in this message\n`);
      expect(result.stderr).toBe(`${HINT(text, 'To cite Fix flaky CI on main (flaky-ci), put its mention in the message: sessref mention flaky-ci')}\n`);
    }
  });

  it('the command in the hint prints the mention that does cite the session', async () => {
    const mention = (await ok(['mention', 'flaky-ci', '--root', root])).trim();
    const step = await json<{ references: { sessionId: string }[] }>(['prepare', '--root', root, '--target', 'scratchpad', `Summarize ${mention}`]);
    expect(step.references.map((r) => r.sessionId)).toEqual(['flaky-ci']);
  });

  it('names every session an ambiguous @text matches', async () => {
    // The longest match wins: the whole title of one session.
    const one = await sessref(['prepare', '--root', root, '--target', 'scratchpad', 'ship @deploy staging hotfix first']);
    expect(one.code).toBe(0);
    expect(one.stderr).toMatch(/^hint "@deploy staging hotfix" is plain text, .* To cite Deploy staging hotfix \([0-9a-f-]{36}\), put its mention in the message: sessref mention [0-9a-f-]{36}\n$/);
    // Two titles share the words typed: both are named, each with its command.
    const both = await sessref(['prepare', '--root', root, '--target', 'scratchpad', 'which @Deploy staging?']);
    expect(both.stderr).toMatch(
      /^hint "@Deploy staging" is plain text, .* It matches 2 sessions; to cite one, put its mention in the message: Deploy staging (?:hotfix|rollback) \([0-9a-f-]{36}\): sessref mention [0-9a-f-]{36}; Deploy staging (?:hotfix|rollback) \([0-9a-f-]{36}\): sessref mention [0-9a-f-]{36}\n$/,
    );
  });

  it('stays quiet for canonical mentions, e-mail addresses, the target itself and text that names no session', async () => {
    for (const message of [
      'Compare @[Fix flaky CI on main](dsh-session:ImZsYWt5LWNpIg) with dsh-session:ImJpbGxpbmctc2NoZW1hIg',
      'mail dev@flaky-ci.example about it',
      'note to @scratchpad',
      'ask @someone about @Fix the build',
    ]) {
      const result = await sessref(['prepare', '--root', root, '--target', 'scratchpad', message]);
      expect(result, message).toMatchObject({ code: 0, stderr: '' });
    }
  });

  it('under --json the hint is a JSON object on stderr', async () => {
    const result = await sessref(['prepare', '--root', root, '--target', 'scratchpad', 'see @quick-question', '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ references: [], messages: [{ content: [{ type: 'text', text: 'see @quick-question' }] }] });
    expect(JSON.parse(result.stderr)).toEqual({
      hint: {
        code: 'PLAIN_MENTION',
        text: '@quick-question',
        sessions: [{ sessionId: 'quick-question', label: 'quick-question', command: 'sessref mention quick-question' }],
        message: '"@quick-question" is plain text, not a session reference: the model gets it as written, with no snapshot. To cite quick-question, put its mention in the message: sessref mention quick-question',
      },
    });
  });
});

describe('send with chat-style @text', () => {
  it('appends the message exactly as typed, no snapshot, and hints; only the target log changes', async () => {
    const copy = await copyRoot(root);
    const before = await hashTree(copy);
    const message = 'Recap @Fix flaky CI please';
    const result = await sessref(['send', '--root', copy, '--target', 'scratchpad', message]);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe(`${HINT('@Fix flaky CI', 'To cite Fix flaky CI on main (flaky-ci), put its mention in the message: sessref mention flaky-ci')}\n`);
    const lines = await logLines(copy, 'scratchpad');
    const users = lines.filter((line) => line.type === 'user/message').map((line) => line.data as { content: { text: string }[]; source: { kind: string } });
    expect(users.at(-1)).toMatchObject({ content: [{ type: 'text', text: message }], source: { kind: 'user' } });
    expect(users.some((user) => user.source.kind === 'session-reference')).toBe(false);
    const after = await hashTree(copy);
    for (const [path, hash] of Object.entries(before)) if (!path.includes('/scratchpad/')) expect(after[path], path).toBe(hash);
  });
});
