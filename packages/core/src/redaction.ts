/**
 * Credentials never leave in a snapshot: the one rule that finds well-known
 * secret formats in carried text and replaces each value with
 * `[redacted: <kind>]`. Pure and synchronous, one regular-expression pass per
 * text, so it runs on every projected item before budgeting.
 *
 * Every pattern starts with a literal (a token prefix, a keyword) or only
 * where a run of its characters starts, so a long identifier or base64 blob
 * is scanned once, never once per position inside it. Replacements hold a
 * space and brackets, which no value pattern accepts, so redacting twice
 * changes nothing.
 */

/** Text after redaction, and how many values it replaced. */
export interface Redacted {
  text: string;
  count: number;
}

/** What a replacement says instead of the value. */
export function redactionMark(kind: string): string {
  return `[redacted: ${kind}]`;
}

/** `password` as a pattern matching it in any letter case (`Password`, `DB_PASSWORD`, …). */
function anyCase(word: string): string {
  return word.replace(/[a-z]/g, (letter) => `[${letter}${letter.toUpperCase()}]`);
}

/** A keyword's spelling with `_`, `-` or nothing between its words (`api_key`, `api-key`, `apiKey`). */
function keyword(...words: string[]): string {
  return words.map(anyCase).join('[_-]?');
}

/**
 * One rule: `pattern` matches the whole secret, or `prefix` then the secret
 * (kept text before the value: a keyword and its separator, a URL's scheme
 * and user). A rule with `looksSecret` replaces only values it accepts.
 */
interface Rule {
  kind: string;
  pattern: string;
  prefix?: string;
  looksSecret?: (value: string) => boolean;
}

/**
 * A value an assignment may hold: printable ASCII without space, quotes,
 * brackets, `$` (a `${VAR}` template), `&` (a URL's next parameter), `,` or
 * `;`. A call's `(` is kept, to be refused as code.
 */
const ASSIGNED_VALUE = '[A-Za-z0-9!#%*+\\-./:=?@^_|~(]{8,}';
/** Before a keyword or separator: an optional closing quote (`"password": …`). */
const SEPARATOR = '["\']?\\s*[:=]\\s*["\']?';
/** Code rather than a value: a call, or a dotted path of identifiers (`process.env.TOKEN_V2`). */
const CODE_LIKE = /\(|^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+$/;

/** An assigned value that is a secret rather than a word, a type or code: letters and digits both, and not code. */
function looksSecret(value: string): boolean {
  return /[A-Za-z]/.test(value) && /[0-9]/.test(value) && !CODE_LIKE.test(value);
}

function assignment(kind: string, keywords: string[]): Rule {
  return { kind, prefix: `(?:${keywords.join('|')})${SEPARATOR}`, pattern: ASSIGNED_VALUE, looksSecret };
}

/**
 * The kinds, most specific first: at one position the first rule that
 * matches wins, so a keyword's own rule (AWS's secret key) comes before the
 * generic assignment that would also match it.
 */
const RULES: readonly Rule[] = [
  // The body stops at the first `--`, so a BEGIN line without its END costs a scan to the next dash pair, not to the end of the text.
  { kind: 'private-key', pattern: '-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY-----(?:(?:[A-Za-z0-9+/=\\s:,]|-(?!-))*-----END [A-Z0-9 ]{0,40}PRIVATE KEY-----|(?:\\r?\\n[A-Za-z0-9+/=]+)*)' },
  { kind: 'aws-access-key-id', pattern: '\\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\\b' },
  { kind: 'aws-secret-access-key', prefix: `(?:${keyword('aws', 'secret', 'access', 'key')}|${keyword('aws', 'secret', 'key')}|${keyword('secret', 'access', 'key')})${SEPARATOR}`, pattern: '[A-Za-z0-9/+=]{40}(?![A-Za-z0-9/+=])' },
  { kind: 'gcp-api-key', pattern: '\\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])' },
  { kind: 'github-token', pattern: '\\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\\b' },
  { kind: 'gitlab-token', pattern: '\\bglpat-[A-Za-z0-9_-]{20,}' },
  { kind: 'anthropic-api-key', pattern: '\\bsk-ant-[A-Za-z0-9_-]{20,}' },
  { kind: 'openai-api-key', pattern: '\\bsk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}' },
  // The bare `sk-` form is OpenAI's older keys' and DeepSeek's alike: the text cannot tell which.
  { kind: 'sk-api-key', pattern: '\\bsk-[A-Za-z0-9]{20,}\\b' },
  { kind: 'slack-token', pattern: '\\bxox[baprs]-[A-Za-z0-9-]{10,}' },
  { kind: 'slack-webhook', pattern: 'https://hooks\\.slack\\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_-]{8,}' },
  { kind: 'stripe-key', pattern: '\\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}' },
  { kind: 'jwt', pattern: '(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{8,}' },
  // Only where a scheme can start, and only the password: `postgres://app:[redacted: url-password]@db`.
  { kind: 'url-password', prefix: '(?<![A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]*://[^\\s:/?#@"\'<>\\[\\]]+:', pattern: '[^\\s/?#@"\'<>\\[\\]]+(?=@)' },
  { kind: 'bearer-token', prefix: '\\bBearer\\s+', pattern: '[A-Za-z0-9._~+/-]{16,}=*', looksSecret },
  assignment('password', [keyword('password'), keyword('passwd')]),
  assignment('secret', [keyword('client', 'secret'), keyword('secret', 'key'), keyword('secret')]),
  assignment('api-key', [keyword('api', 'key'), keyword('access', 'key')]),
  assignment('token', [keyword('access', 'token'), keyword('auth', 'token'), keyword('refresh', 'token'), keyword('token')]),
];

/**
 * A character every match holds: the separators of assignments and URLs,
 * the `-` and `_` of token prefixes and PEM lines, and the capitals of the
 * rest (`AKIA`, `AIza`, `eyJ`, `Bearer`). A text without any is returned
 * untouched after one scan for a character class, many times faster than
 * the scanner's alternation.
 */
const MAY_HOLD_SECRET = /[-_:=ABJ]/;

/**
 * Every rule at once, without capture groups: V8 runs an alternation with
 * named groups several times slower, and matches are rare, so which rule
 * matched is asked of the rules one by one only when one did.
 */
const SCANNER = new RegExp(RULES.map((rule) => `${rule.prefix ?? ''}(?:${rule.pattern})`).join('|'), 'g');

/** Each rule on its own, sticky, its prefix (when it has one) captured: what one match of the scanner is. */
const STICKY = RULES.map((rule) => ({ rule, pattern: new RegExp(rule.prefix === undefined ? `(?:${rule.pattern})` : `(${rule.prefix})(?:${rule.pattern})`, 'y') }));

/**
 * `text` with every credential the rules know replaced by
 * `[redacted: <kind>]`, and how many were. Text without any comes back as
 * the very same string.
 */
export function redactSecrets(text: string): Redacted {
  if (!MAY_HOLD_SECRET.test(text)) return { text, count: 0 };
  let count = 0;
  const redacted = text.replace(SCANNER, (match: string, offset: number) => {
    const replaced = replace(text, match, offset);
    count += replaced.count;
    return replaced.text;
  });
  return count === 0 ? { text, count } : { text: redacted, count };
}

/**
 * One match of the scanner, redacted by its rule: the first that matches at
 * the same place, as the alternation chose it (lookarounds see the whole text).
 */
function replace(text: string, match: string, offset: number): Redacted {
  for (const { rule, pattern } of STICKY) {
    pattern.lastIndex = offset;
    const found = pattern.exec(text);
    if (found === null) continue;
    const prefix = found[1] ?? '';
    const value = match.slice(prefix.length);
    if (rule.looksSecret !== undefined && !rule.looksSecret(value)) {
      // Not a secret itself, yet it may hold a known token (`token=ghp_…`): the value alone is scanned again.
      const inner = redactSecrets(value);
      return { text: prefix + inner.text, count: inner.count };
    }
    return { text: prefix + redactionMark(rule.kind), count: 1 };
  }
  return { text: match, count: 0 };
}
