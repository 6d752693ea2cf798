/**
 * Which plain `@text` names a session (see src/commands/hints.ts): its exact
 * id, or at least the first two words of its label, at a word boundary; the
 * longest match wins and ties are all named.
 */
import { describe, expect, it } from 'vitest';
import { findPlainMentions } from '../src/commands/hints.js';

describe('findPlainMentions', () => {
  const sessions = [
    { sessionId: 'flaky-ci', label: 'Fix flaky CI on main' },
    { sessionId: 'billing-schema', label: 'Design the billing schema' },
    { sessionId: 'x1', label: 'Solo' },
  ];

  it('matches an exact id or the first two words of a label, case-insensitively, at a word boundary', () => {
    expect(findPlainMentions('@FLAKY-CI, please', sessions).map((hint) => hint.text)).toEqual(['@FLAKY-CI']);
    expect(findPlainMentions('@design the billing schema now', sessions)).toEqual([
      { text: '@design the billing schema', sessions: [{ sessionId: 'billing-schema', label: 'Design the billing schema', command: 'sessref mention billing-schema' }] },
    ]);
    expect(findPlainMentions('@solo', sessions).map((hint) => hint.sessions[0]!.sessionId)).toEqual(['x1']);
    expect(findPlainMentions('@flaky-cix @Fix @Design thee', sessions)).toEqual([]);
  });

  it('quotes an id the shell would split', () => {
    const [hint] = findPlainMentions("@it's mine", [{ sessionId: "it's mine", label: "it's mine" }]);
    expect(hint!.sessions[0]!.command).toBe("sessref mention 'it'\\''s mine'");
  });
});
