import { CREDENTIAL_KINDS, fakeCredential, type PlantedCredential } from '@sessref/test-support/credentials';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { anyString } from '../test/arbitraries.js';
import { fitSnapshot } from './fit.js';
import { redactedKinds, redactionMark, redactSecrets } from './redaction.js';
import type { SurfaceMessage, SurfaceSnapshot } from './types.js';
import { utf8Length } from './utf8.js';

const LETTERS = 'abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ';
const DIGITS = '23456789';

/** A chunk of letters and digits, holding both: what every fake is repeated from. */
const chunk = fc
  .tuple(fc.constantFrom(...LETTERS), fc.constantFrom(...DIGITS), fc.string({ unit: fc.constantFrom(...LETTERS, ...DIGITS), maxLength: 4 }))
  .map((parts) => parts.join(''));

/** One fake of any kind, with every spelling its kind has picked by fast-check. */
const credential: fc.Arbitrary<PlantedCredential> = fc
  .tuple(fc.constantFrom(...CREDENTIAL_KINDS), chunk, fc.infiniteStream(fc.nat()))
  .map(([kind, body, choices]) => {
    const picks = choices[Symbol.iterator]();
    return fakeCredential(kind, { chunk: body, pick: (options) => options[picks.next().value! % options.length]! });
  });

const WORDS = ['the', 'deploy', 'failed', 'again', 'because', 'config', 'was', 'stale', 'so', 'I', 'reran', 'it', 'with', 'new', 'values'];
const CJK = ['请', '使用', '这个', '连接', '数据库', '结果', '。', '、', '設定', 'を', '確認', 'して'];
const words = fc.array(fc.constantFrom(...WORDS), { maxLength: 8 }).map((list) => list.join(' '));
const cjk = fc.array(fc.constantFrom(...CJK), { minLength: 1, maxLength: 6 }).map((list) => list.join(''));

/** Where a credential sits: the text before and after it, none of which redaction may touch. */
const surrounding: fc.Arbitrary<[string, string]> = fc.oneof(
  fc.tuple(words.map((text) => `${text} `), words.map((text) => ` ${text}.`)),
  fc.tuple(words.map((text) => `${text}:\n\`\`\`sh\n`), fc.constant('\n```\n')),
  fc.tuple(fc.constant('{"step": 3, "value": "'), fc.constant('", "ok": true}')),
  fc.tuple(fc.constant('see https://example.com/docs?ref='), words.map((text) => ` ${text}`)),
  fc.tuple(cjk, cjk),
);

/** Text holding planted credentials, the text redaction must make of it, and how many it planted. */
const planted = fc.array(fc.tuple(credential, surrounding), { minLength: 1, maxLength: 4 }).map((parts) => ({
  text: parts.map(([fake, [before, after]]) => before + fake.planted + after).join('\n'),
  expected: parts.map(([fake, [before, after]]) => before + fake.expected + after).join('\n'),
  fakes: parts.map(([fake]) => fake),
}));

/** A lone surrogate: half of a pair with its other half missing. */
const LONE_SURROGATE = /[\ud800-\udfff]/u;

describe('redactSecrets', () => {
  it('replaces every planted credential of every kind, in prose, code blocks, JSON, URLs and CJK text, and nothing around it', () => {
    fc.assert(
      fc.property(planted, ({ text, expected, fakes }) => {
        const redacted = redactSecrets(text);
        expect(redacted.text).toBe(expected);
        expect(redacted.count).toBe(fakes.length);
        for (const fake of fakes) expect(redacted.text).not.toContain(fake.planted);
      }),
      { numRuns: 2000 },
    );
  });

  it('has a fake for every kind it redacts, and plants each of them', () => {
    expect([...CREDENTIAL_KINDS].sort()).toEqual([...redactedKinds()].sort());
    const seen = new Set(fc.sample(credential, { numRuns: 500, seed: 34 }).map((fake) => fake.kind));
    expect([...seen].sort()).toEqual([...CREDENTIAL_KINDS].sort());
  });

  it('is idempotent: redacted text has nothing left to redact', () => {
    const text = fc.oneof(anyString(), planted.map((sample) => sample.text), fc.tuple(anyString(), planted).map(([noise, sample]) => noise + sample.text + noise));
    fc.assert(
      fc.property(text, (input) => {
        const once = redactSecrets(input);
        expect(redactSecrets(once.text)).toEqual({ text: once.text, count: 0 });
      }),
      { numRuns: 1000 },
    );
  });

  it('never splits a surrogate pair: well-formed text stays well-formed, and no lone surrogate appears', () => {
    const text = fc.tuple(anyString(), planted, anyString()).map(([before, sample, after]) => before + sample.text + after);
    fc.assert(
      fc.property(text, (input) => {
        const { text: output } = redactSecrets(input);
        if (!LONE_SURROGATE.test(input)) expect(LONE_SURROGATE.test(output)).toBe(false);
        expect(output.match(new RegExp(LONE_SURROGATE, 'gu'))?.length ?? 0).toBeLessThanOrEqual(input.match(new RegExp(LONE_SURROGATE, 'gu'))?.length ?? 0);
      }),
      { numRuns: 1000 },
    );
  });

  it('returns text without any credential as the very same string', () => {
    fc.assert(
      fc.property(words, (input) => {
        const redacted = redactSecrets(input);
        expect(redacted).toEqual({ text: input, count: 0 });
      }),
    );
  });

  it('leaves values that are code or words, not secrets, in assignments, and `sk-` before a long word', () => {
    const words = ['password: string;', 'token = getToken2(session);', 'api_key: process.env.API_KEY_V2', 'secret: true', 'max_tokens: 4096', 'password=********'];
    for (const text of [...words, 'sk-abcdefghijklmnopqrstuvwxyz']) {
      expect(redactSecrets(text)).toEqual({ text, count: 0 });
    }
  });

  it('redacts a known token inside an assignment value that is not itself secret-looking', () => {
    const token = `ghp_${'x'.repeat(36)}`;
    expect(redactSecrets(`token=${token}`)).toEqual({ text: `token=${redactionMark('github-token')}`, count: 1 });
  });

  it('stays linear on inputs built to make a pattern backtrack or recurse, and redacts exactly what they hold', () => {
    const headers = '-----BEGIN PRIVATE KEY-----'.repeat(20_000);
    expect(redactSecrets(headers)).toEqual({ text: redactionMark('private-key').repeat(20_000), count: 20_000 });
    for (const text of ['password='.repeat(50_000), `http://${'a'.repeat(100_000)}:${'b'.repeat(100_000)}`, `${'x'.repeat(30)}_`.repeat(30_000), `eyJ${'a'.repeat(200_000)}`]) {
      expect(redactSecrets(text)).toEqual({ text, count: 0 });
    }
  });
});

describe('fitSnapshot with redaction', () => {
  const snapshotOf = (texts: readonly string[]): SurfaceSnapshot => ({
    session: { id: 'source', createdAt: 0 },
    capturedThroughSeq: texts.length,
    messages: texts.map((text, index): SurfaceMessage => ({ role: index % 2 === 0 ? 'user' : 'assistant', origin: 'direct-user', content: [{ type: 'text', text }] })),
  });

  it('redacts before budgeting: the snapshot stays within the budget and carries no planted credential', () => {
    fc.assert(
      fc.property(fc.array(planted, { minLength: 1, maxLength: 6 }), fc.integer({ min: 120, max: 3000 }), (samples, maxBytes) => {
        const { retained, items, redactedValues } = fitSnapshot({ sessionId: 'source', label: 'source' }, snapshotOf(samples.map((sample) => sample.text)), maxBytes, { redact: true });
        expect(items.map((item) => item.text)).toEqual(samples.map((sample) => sample.expected));
        expect(redactedValues).toBe(samples.reduce((sum, sample) => sum + sample.fakes.length, 0));
        if (retained === undefined) return;
        expect(retained.bytes).toBeLessThanOrEqual(maxBytes);
        expect(utf8Length(retained.json)).toBe(retained.bytes);
        for (const fake of samples.flatMap((sample) => sample.fakes)) expect(retained.json).not.toContain(fake.planted);
      }),
      { numRuns: 300 },
    );
  });

  it('without redaction carries the text as it is', () => {
    const sample = fc.sample(planted, { numRuns: 1, seed: 7 })[0]!;
    const fitted = fitSnapshot({ sessionId: 'source', label: 'source' }, snapshotOf([sample.text]), 65536);
    expect(fitted.items[0]!.text).toBe(sample.text);
    expect(fitted.redactedValues).toBe(0);
  });
});
