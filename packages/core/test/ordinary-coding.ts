/**
 * Ordinary coding-conversation text that holds no credential, for counting
 * redaction's false positives: git hashes, UUIDs, base64 data, npm
 * integrity hashes, hex colours, long identifiers, file paths, digests,
 * URLs without passwords, and code that names keys and tokens without
 * holding one. Each line comes from a named template, so a false positive
 * is reported by what it is.
 */
import fc from 'fast-check';

/** One line of the corpus and the template it came from. */
export interface OrdinaryLine {
  template: string;
  text: string;
}

const HEX = '0123456789abcdef';
const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const hex = (length: number) => fc.string({ unit: fc.constantFrom(...HEX), minLength: length, maxLength: length });
const base64 = (min: number, max: number) => fc.string({ unit: fc.constantFrom(...BASE64), minLength: min, maxLength: max });
const uuid = fc.uuid();
const word = fc.constantFrom('billing', 'session', 'reference', 'invoice', 'webhook', 'retry', 'cache', 'parser', 'render', 'upload');
const count = fc.integer({ min: 1, max: 99_999 });
const camel = fc.array(word, { minLength: 3, maxLength: 6 }).map((words) => words.map((part, index) => (index === 0 ? part : part[0]!.toUpperCase() + part.slice(1))).join(''));
const snake = fc.array(word, { minLength: 3, maxLength: 6 }).map((words) => words.join('_').toUpperCase());

/** Every template: its name and the lines it makes. */
const TEMPLATES: Readonly<Record<string, fc.Arbitrary<string>>> = {
  'git commit hash': fc.tuple(hex(40), hex(7)).map(([full, short]) => `Fixed in ${full}; cherry-picked onto main as ${short}.`),
  uuid: fc.tuple(uuid, uuid).map(([request, trace]) => `The failing request was ${request} (trace ${trace}).`),
  'base64 data URL': base64(200, 1200).map((data) => `The fixture inlines the icon: data:image/png;base64,${data}==`),
  'npm integrity hash': base64(86, 86).map((data) => `"integrity": "sha512-${data}==",`),
  'hex colour': fc.tuple(hex(6), hex(3)).map(([six, three]) => `.button { color: #${six}; border-color: #${three}; }`),
  'long identifier': fc.tuple(camel, snake).map(([name, constant]) => `Renamed ${name} to ${constant} in the config loader.`),
  'file path': fc.tuple(word, word, count).map(([folder, name, line]) => `See /home/dev/app/src/${folder}/${name}-handler.test.ts:${line}:7 and ./packages/${folder}/dist/index.js`),
  'container digest': hex(64).map((digest) => `docker pull ghcr.io/acme/api@sha256:${digest}`),
  'sha256 checksum': hex(64).map((digest) => `${digest}  dist/app-1.4.2.tar.gz`),
  'URL without password': fc.tuple(word, count).map(([repo, pull]) => `https://github.com/acme/${repo}/pull/${pull}#discussion_r${pull}0 and git@github.com:acme/${repo}.git`),
  'URL with user only': word.map((user) => `ssh://${user}@build.internal:2222/srv/repo.git`),
  'log line': fc.tuple(uuid, count).map(([id, ms]) => `2026-12-06T12:00:00Z INFO request_id=${id} status=200 duration_ms=${ms}`),
  'token in code': fc.tuple(camel, count).map(([name, id]) => `const token = await getAccessToken(${name}, ${id});`),
  'type annotation': word.map((name) => `interface ${name}Login { password: string; apiKey?: string }`),
  'environment reference': snake.map((name) => `api_key: process.env.${name}, secret: process.env.SECRET_${name}`),
  'template placeholder': snake.map((name) => `password=\${${name}} and token: \${{ secrets.${name} }}`),
  'token count': count.map((max) => `"max_tokens": ${max}, "temperature": 0.2`),
  'cloud resource name': fc.tuple(fc.stringMatching(/^[0-9]{12}$/), word, hex(8)).map(([account, role, suffix]) => `arn:aws:iam::${account}:role/${role}-deployer, bucket ${role}-${suffix}`),
  'kebab-case name': fc.array(word, { minLength: 4, maxLength: 8 }).map((words) => `task-${words.join('-')} and disk-${words.join('')}`),
  'bearer placeholder': word.map((name) => `curl -H "Authorization: Bearer $TOKEN" https://api.acme.dev/${name}`),
  'pagination token': base64(24, 60).map((cursor) => `nextPageToken: "${cursor}"`),
  'version hash': fc.tuple(hex(10), count).map(([commit, build]) => `sessref 0.1.0+${commit} (build ${build})`),
};

/** The template names, in order. */
export const ORDINARY_TEMPLATES: readonly string[] = Object.keys(TEMPLATES);

/** `perTemplate` lines of every template, the same on every run. */
export function ordinaryCorpus(perTemplate: number): OrdinaryLine[] {
  return Object.entries(TEMPLATES).flatMap(([template, lines], index) =>
    fc.sample(lines, { numRuns: perTemplate, seed: 34_000 + index }).map((text) => ({ template, text })),
  );
}
