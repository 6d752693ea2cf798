/**
 * `sessref search` reads conversations only (#35, item 3): a query that no
 * conversation holds but that names sessions by title, id or cwd, which
 * `sessref list QUERY` finds, gets a hint saying so, with that command.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emptyRoot, ok, removeTemps, requireBuild, sessref, withoutRootLine } from './support';

let root: string;

beforeAll(async () => {
  requireBuild();
  root = await emptyRoot();
  await ok(['seed', '--root', root]);
});

afterAll(removeTemps);

describe('sessref search for what only titles say', () => {
  it('finds no conversation with 長い, and points at list, which finds the session titled with it', async () => {
    const result = await sessref(['search', '長い', '--root', root]);
    expect(result).toMatchObject({ code: 0, stdout: 'no matches\n' });
    expect(withoutRootLine(result.stderr)).toBe(`hint no conversation says "長い", but 1 session has it in the title, id or cwd: sessref list '長い'\n`);
    expect(await ok(['list', '長い', '--root', root])).toMatch(/^research-log +dsh +Long research log — 長い会話 🚀/m);
  });

  it('gives the hint as a JSON object under --json, and none where a conversation matches', async () => {
    const result = await sessref(['search', 'mock', '--root', root, '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).not.toEqual([]);
    expect(withoutRootLine(result.stderr)).toBe('');
    const unsaid = await sessref(['search', 'webapp', '--root', root, '--json']);
    expect(JSON.parse(unsaid.stdout)).toEqual([]);
    expect(JSON.parse(withoutRootLine(unsaid.stderr))).toEqual({ hint: { code: 'LIST_MATCHES', message: 'no conversation says "webapp", but 4 sessions have it in the title, id or cwd: sessref list webapp' } });
  });
});
