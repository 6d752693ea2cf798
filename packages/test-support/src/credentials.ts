/**
 * Format-valid FAKE credentials of every kind sessref redacts, built at test
 * time from a short repeated chunk, so no string in the repository looks
 * like a live key to a secret scanner. Each fake comes with the text
 * redaction must leave in its place (the kept keyword, scheme or user, and
 * the mark).
 * @module @sessref/test-support/credentials
 */

/** One planted credential and what a redacted text holds instead. */
export interface PlantedCredential {
  kind: string;
  planted: string;
  expected: string;
}

/**
 * What a fake is built from: `chunk` is repeated to the length a format
 * needs. It must hold an ASCII letter and a digit and only letters and
 * digits, so every format that asks for a mixed value gets one.
 */
export interface FakeParts {
  chunk: string;
  /** Picks one of a kind's spellings (key prefixes, keywords, separators), so every one gets planted. */
  pick: <T>(options: readonly T[]) => T;
}

const mark = (kind: string) => `[redacted: ${kind}]`;

/** `chunk` repeated and cut to exactly `length` characters. */
function filled(chunk: string, length: number): string {
  return chunk.repeat(Math.ceil(length / chunk.length)).slice(0, length);
}

/** A fake whose whole text is replaced. */
function whole(kind: string, planted: string): PlantedCredential {
  return { kind, planted, expected: mark(kind) };
}

/** A fake whose `kept` part stays and whose value is replaced. */
function valued(kind: string, kept: string, value: string, after = ''): PlantedCredential {
  return { kind, planted: kept + value + after, expected: kept + mark(kind) + after };
}

const BUILDERS: Readonly<Record<string, (parts: FakeParts) => PlantedCredential>> = {
  'private-key': ({ chunk, pick }) => {
    const label = pick(['', 'RSA ', 'EC ', 'OPENSSH ', 'ENCRYPTED ']);
    const body = [filled(chunk, 64), filled(chunk, 64), `${filled(chunk, 20)}==`].join('\n');
    return whole('private-key', `-----BEGIN ${label}PRIVATE KEY-----\n${body}\n-----END ${label}PRIVATE KEY-----`);
  },
  'aws-access-key-id': ({ chunk, pick }) => whole('aws-access-key-id', pick(['AKIA', 'ASIA']) + filled(chunk.toUpperCase(), 16)),
  'aws-secret-access-key': ({ chunk, pick }) =>
    valued('aws-secret-access-key', pick(['aws_secret_access_key = ', 'AWS_SECRET_ACCESS_KEY=', 'secretAccessKey: ']), filled(`${chunk}/+`, 40)),
  'gcp-api-key': ({ chunk }) => whole('gcp-api-key', `AIza${filled(`${chunk}_-`, 35)}`),
  'github-token': ({ chunk, pick }) =>
    whole('github-token', pick([`${pick(['ghp', 'gho', 'ghu', 'ghs', 'ghr'])}_${filled(chunk, 36)}`, `github_pat_${filled(chunk, 22)}_${filled(chunk, 59)}`])),
  'gitlab-token': ({ chunk }) => whole('gitlab-token', `glpat-${filled(chunk, 20)}`),
  'anthropic-api-key': ({ chunk }) => whole('anthropic-api-key', `sk-ant-api03-${filled(`${chunk}-_`, 93)}AA`),
  'openai-api-key': ({ chunk, pick }) => whole('openai-api-key', `sk-${pick(['proj', 'svcacct', 'admin'])}-${filled(`${chunk}_-`, 64)}${filled(chunk, 20)}`),
  // The bare `sk-` form: OpenAI's older keys (48 characters) and DeepSeek's (32 hexadecimal digits).
  'sk-api-key': ({ chunk, pick }) => whole('sk-api-key', `sk-${pick([filled(chunk, 48), filled(hexOf(chunk), 32)])}`),
  'slack-token': ({ chunk, pick }) => whole('slack-token', `xox${pick(['b', 'p', 'a', 'r', 's'])}-${filled('1234567890', 12)}-${filled(chunk, 24)}`),
  'slack-webhook': ({ chunk }) =>
    whole('slack-webhook', `https://hooks.slack.com/services/T${filled(chunk.toUpperCase(), 8)}/B${filled(chunk.toUpperCase(), 8)}/${filled(chunk, 24)}`),
  'stripe-key': ({ chunk, pick }) => whole('stripe-key', `${pick(['sk_live_', 'rk_live_', 'sk_test_'])}${filled(chunk, 24)}`),
  jwt: ({ chunk }) => whole('jwt', `eyJ${filled(chunk, 20)}.eyJ${filled(chunk, 40)}.${filled(`${chunk}-_`, 43)}`),
  'url-password': ({ chunk, pick }) => valued('url-password', `${pick(['postgres', 'https', 'redis', 'mongodb+srv'])}://app_user:`, filled(chunk, 16), `@db.internal:5432/main`),
  'bearer-token': ({ chunk }) => valued('bearer-token', 'Authorization: Bearer ', filled(chunk, 32)),
  password: ({ chunk, pick }) => valued('password', pick(['password=', 'DB_PASSWORD=', '"password": "', 'passwd: ']), `${filled(chunk, 14)}!`),
  secret: ({ chunk, pick }) => valued('secret', pick(['client_secret=', 'SECRET_KEY = ', '"secret": "', 'secret: ']), filled(chunk, 24)),
  'api-key': ({ chunk, pick }) => valued('api-key', pick(['api_key=', 'API_KEY: ', '"apiKey": "', 'access-key=']), filled(chunk, 24)),
  token: ({ chunk, pick }) => valued('token', pick(['token=', 'GITHUB_TOKEN=', '"access_token": "', 'refreshToken: ']), filled(chunk, 24)),
};

/** Every kind a fake is built for: every kind sessref redacts. */
export const CREDENTIAL_KINDS: readonly string[] = Object.keys(BUILDERS);

/** A fake of `kind` from `parts`. */
export function fakeCredential(kind: string, parts: FakeParts): PlantedCredential {
  const build = BUILDERS[kind];
  if (build === undefined) throw new Error(`no fake credential of kind "${kind}"`);
  return build(parts);
}

/**
 * One fake of every kind from `chunk`, the spellings of each kind taken in
 * turn across the list: what an end-to-end test plants in a session.
 */
export function everyFake(chunk: string): PlantedCredential[] {
  let turn = 0;
  const pick = <T>(options: readonly T[]): T => options[turn++ % options.length]!;
  return CREDENTIAL_KINDS.map((kind) => fakeCredential(kind, { chunk, pick }));
}

/** A hexadecimal chunk of the same length (DeepSeek's keys are hexadecimal). */
function hexOf(chunk: string): string {
  return [...chunk].map((character) => (character.charCodeAt(0) % 16).toString(16)).join('');
}
