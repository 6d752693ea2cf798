/**
 * False positives of redaction over ordinary coding-conversation text
 * (`ordinary-coding.ts`): the figures docs/redaction.md lists. Only the
 * pagination token, a value assigned to a `…Token` key, is ever redacted,
 * and exactly when it mixes letters and digits (the rule for assigned
 * values); no other template is touched.
 */
import { describe, expect, it } from 'vitest';
import { redactSecrets } from '../src/redaction.js';
import { ORDINARY_TEMPLATES, ordinaryCorpus } from './ordinary-coding.js';

const PER_TEMPLATE = 200;
const corpus = ordinaryCorpus(PER_TEMPLATE);

describe('redaction over ordinary coding text', () => {
  it('leaves every template but the pagination token untouched', () => {
    const touched = corpus.filter((line) => line.template !== 'pagination token' && redactSecrets(line.text).count > 0);
    expect(touched).toEqual([]);
    expect(new Set(corpus.map((line) => line.template)).size).toBe(ORDINARY_TEMPLATES.length);
  });

  it('redacts a pagination token exactly when it mixes letters and digits: the documented false positive', () => {
    const tokens = corpus.filter((line) => line.template === 'pagination token');
    expect(tokens).toHaveLength(PER_TEMPLATE);
    let redacted = 0;
    for (const { text } of tokens) {
      const value = /"(.*)"/.exec(text)![1]!;
      const expected = /[A-Za-z]/.test(value) && /[0-9]/.test(value) ? 1 : 0;
      expect(redactSecrets(text).count, text).toBe(expected);
      redacted += expected;
    }
    // The seeded corpus's figure, as docs/redaction.md states it.
    expect(redacted).toBe(198);
  });
});
