/**
 * Credentials never leave in a snapshot: the one rule that finds well-known
 * secret formats in carried text and replaces each value with
 * `[redacted: <kind>]`. Pure and synchronous, one regular-expression scan
 * per text, so it runs on every projected item before budgeting.
 *
 * Speed: every rule's pattern starts at its anchor, a character that is rare
 * in prose (`-`, `_`, `:`, `=`, or a capital: `AKIA`, `AIza`, `Bearer`, the
 * `J` of `eyJ`), and checks what comes before it with a lookbehind, so the
 * scan skips ordinary words at the speed of a search for one character
 * class. A token prefix before its anchor (`ghp` before `_`) is part of the
 * secret all the same: the rule's `back` says how many characters it has.
 *
 * Replacements hold a space and brackets, which no value pattern accepts,
 * so redacting twice changes nothing.
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
 * One rule. `pattern` matches from the rule's anchor (one of the characters
 * of `anchor`): after `kept` (text
 * before the value that stays: a separator, a URL's user) it is the secret,
 * which also spans the `back` characters before the match. A rule with
 * `looksSecret` replaces only values it accepts.
 */
interface Rule {
  kind: string;
  /** The characters a match starts with: where the scan asks this rule at all. */
  anchor: string;
  pattern: string;
  kept?: string;
  back?: number;
  looksSecret?: (value: string) => boolean;
}

/**
 * A value an assignment may hold: printable ASCII without space, quotes,
 * brackets, `$` (a `${VAR}` template), `&` (a URL's next parameter), `,` or
 * `;`. A call's `(` is kept, to be refused as code.
 */
const ASSIGNED_VALUE = '[A-Za-z0-9!#%*+\\-./:=?@^_|~(]{8,}';
/** Code rather than a value: a call, or a dotted path of identifiers (`process.env.TOKEN_V2`). */
const CODE_LIKE = /\(|^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+$/;

/** An assigned value that is a secret rather than a word, a type or code: letters and digits both, and not code. */
function looksSecret(value: string): boolean {
  return /[A-Za-z]/.test(value) && /[0-9]/.test(value) && !CODE_LIKE.test(value);
}

/**
 * From the separator of `keyword = ` or `"keyword": "` (the keyword, and an
 * optional closing quote, are checked behind it) to where the value starts.
 */
function afterKeyword(keywords: readonly string[]): string {
  return `[:=](?<=(?:${keywords.join('|')})["']?\\s*[:=])\\s*["']?`;
}

function assignment(kind: string, keywords: readonly string[]): Rule {
  return { kind, anchor: ':=', kept: afterKeyword(keywords), pattern: ASSIGNED_VALUE, looksSecret };
}

/**
 * The kinds, most specific first: at one anchor the first rule that matches
 * wins, so a keyword's own rule (AWS's secret key) comes before the generic
 * assignment that would also match, and Slack's webhook before a URL's
 * password.
 */
function rulesInOrder(): readonly Rule[] {
  return [
    // The body stops at the first `--`, so a BEGIN line without its END costs a scan to the next dash pair, not to the end of the text.
    { kind: 'private-key', anchor: '-', pattern: '-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY-----(?:(?:[A-Za-z0-9+/=\\s:,]|-(?!-))*-----END [A-Z0-9 ]{0,40}PRIVATE KEY-----|(?:\\r?\\n[A-Za-z0-9+/=]+)*)' },
    { kind: 'aws-access-key-id', anchor: 'A', pattern: 'A(?<!\\wA)(?:KIA|SIA|BIA|CCA)[A-Z0-9]{16}\\b' },
    {
      kind: 'aws-secret-access-key',
      anchor: ':=',
      kept: afterKeyword([keyword('aws', 'secret', 'access', 'key'), keyword('aws', 'secret', 'key'), keyword('secret', 'access', 'key')]),
      pattern: '[A-Za-z0-9/+=]{40}(?![A-Za-z0-9/+=])',
    },
    { kind: 'gcp-api-key', anchor: 'A', pattern: 'A(?<!\\wA)Iza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])' },
    { kind: 'github-token', anchor: '_', back: 3, pattern: '_(?<=\\bgh[pousr]_)[A-Za-z0-9]{36,255}\\b' },
    { kind: 'github-token', anchor: '_', back: 6, pattern: '_(?<=\\bgithub_)pat_[A-Za-z0-9_]{22,255}\\b' },
    { kind: 'gitlab-token', anchor: '-', back: 5, pattern: '-(?<=\\bglpat-)[A-Za-z0-9_-]{20,}' },
    { kind: 'anthropic-api-key', anchor: '-', back: 2, pattern: '-(?<=\\bsk-)ant-[A-Za-z0-9_-]{20,}' },
    { kind: 'openai-api-key', anchor: '-', back: 2, pattern: '-(?<=\\bsk-)(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}' },
    // The bare `sk-` form is OpenAI's older keys' and DeepSeek's alike: the text cannot tell which. Random keys hold a digit; `sk-` and a long word does not.
    { kind: 'sk-api-key', anchor: '-', back: 2, pattern: '-(?<=\\bsk-)(?=[A-Za-z]*[0-9])[A-Za-z0-9]{20,}\\b' },
    { kind: 'slack-token', anchor: '-', back: 4, pattern: '-(?<=\\bxox[baprs]-)[A-Za-z0-9-]{10,}' },
    { kind: 'slack-webhook', anchor: ':', back: 5, pattern: ':(?<=\\bhttps:)//hooks\\.slack\\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_-]{8,}' },
    { kind: 'stripe-key', anchor: '_', back: 2, pattern: '_(?<=\\b[rs]k_)(?:live|test)_[A-Za-z0-9]{16,}' },
    { kind: 'jwt', anchor: 'J', back: 2, pattern: 'J(?<=(?<![A-Za-z0-9_-])eyJ)[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{8,}' },
    // Only the password: `postgres://app:[redacted: url-password]@db`.
    { kind: 'url-password', anchor: ':', kept: ':(?<=[A-Za-z]:)//[^\\s:/?#@"\'<>\\[\\]]+:', pattern: '[^\\s/?#@"\'<>\\[\\]]+(?=@)' },
    { kind: 'bearer-token', anchor: 'B', kept: 'B(?<!\\wB)earer\\s+', pattern: '[A-Za-z0-9._~+/-]{16,}=*', looksSecret },
    assignment('password', [keyword('password'), keyword('passwd')]),
    assignment('secret', [keyword('client', 'secret'), keyword('secret', 'key'), keyword('secret')]),
    assignment('api-key', [keyword('api', 'key'), keyword('access', 'key')]),
    assignment('token', [keyword('access', 'token'), keyword('auth', 'token'), keyword('refresh', 'token'), keyword('token')]),
  ];
}

/** Every kind a mark can name, in rule order. */
export function redactedKinds(): readonly string[] {
  return [...new Set(ruleSet().rules.map((rule) => rule.kind))];
}

/** Rules compiled for one scan: all at once, and one by one to tell which rule a match is. */
interface Scanner {
  any: RegExp;
  each: readonly { rule: Rule; pattern: RegExp }[];
}

/**
 * Rules compiled for a scan: a search for any of their anchors, then, by
 * the anchor found, those rules as one sticky alternation without capture
 * groups (matches are rare, so which rule matched is asked of the rules one
 * by one only when one did) and each rule sticky, its kept part captured.
 * Searching text for a character class is several times faster in V8 than
 * running the whole alternation over it, and an anchor asks only its rules.
 */
interface Scan {
  anchors: RegExp;
  byAnchor: ReadonlyMap<string, Scanner>;
}

function scanOf(rules: readonly Rule[]): Scan {
  const characters = [...new Set(rules.flatMap((rule) => [...rule.anchor]))];
  const byAnchor = new Map(characters.map((character) => [character, scannerOf(rules.filter((rule) => rule.anchor.includes(character)))]));
  // Inside a class only `-`, `]`, `^` and a backslash are special.
  const escaped = characters.join('').replace(/[-\]^\\]/g, '\\$&');
  return { anchors: new RegExp(`[${escaped}]`, 'g'), byAnchor };
}

function scannerOf(rules: readonly Rule[]): Scanner {
  return {
    any: new RegExp(rules.map((rule) => `${rule.kept ?? ''}(?:${rule.pattern})`).join('|'), 'y'),
    each: rules.map((rule) => ({ rule, pattern: new RegExp(rule.kept === undefined ? `(?:${rule.pattern})` : `(${rule.kept})(?:${rule.pattern})`, 'y') })),
  };
}

/**
 * The rules and their scans: every rule, and the formats alone, for an
 * assigned value that is not a secret itself (no assignment is looked for
 * inside one, so the scan never recurses). Made at the first redaction, not
 * at module load (about a millisecond): a process that loads this module and
 * redacts nothing never compiles them. `list` and `mention` do redact (every
 * title they show), so for them the cost moves, it does not go.
 */
let compiled: { rules: readonly Rule[]; everyRule: Scan; formats: Scan } | undefined;

function ruleSet(): NonNullable<typeof compiled> {
  if (compiled === undefined) {
    const rules = rulesInOrder();
    compiled = { rules, everyRule: scanOf(rules), formats: scanOf(rules.filter((rule) => rule.looksSecret === undefined)) };
  }
  return compiled;
}

/**
 * `text` with every credential the rules know replaced by
 * `[redacted: <kind>]`, and how many were. Text without any comes back as
 * the very same string.
 */
export function redactSecrets(text: string): Redacted {
  return scan(text, ruleSet().everyRule);
}

/**
 * Each regular expression's `lastIndex` is set right before it runs (a value
 * scanned again inside the loop shares them), and read after `test()` for
 * where a match ends: no match array is built for the many anchors where
 * nothing matches.
 */
function scan(text: string, rules: Scan): Redacted {
  let redacted = '';
  let done = 0;
  let count = 0;
  for (let at = 0; at < text.length; ) {
    rules.anchors.lastIndex = at;
    if (!rules.anchors.test(text)) break;
    const start = rules.anchors.lastIndex - 1;
    const scanner = rules.byAnchor.get(text[start]!)!;
    scanner.any.lastIndex = start;
    if (!scanner.any.test(text)) {
      at = start + 1;
      continue;
    }
    at = scanner.any.lastIndex;
    const replaced = replace(text, text.slice(start, at), start, scanner);
    // A token prefix already inside the previous replacement is not redacted twice.
    if (replaced === undefined || replaced.start < done) continue;
    redacted += text.slice(done, replaced.start) + replaced.text;
    done = at;
    count += replaced.count;
  }
  return count === 0 ? { text, count } : { text: redacted + text.slice(done), count };
}

/**
 * One match of the scanner, redacted by its rule (the first that matches at
 * the same place, as the alternation chose it; lookarounds see the whole
 * text): where its replacement starts, and what it is.
 */
function replace(text: string, match: string, offset: number, scanner: Scanner): (Redacted & { start: number }) | undefined {
  for (const { rule, pattern } of scanner.each) {
    pattern.lastIndex = offset;
    const found = pattern.exec(text);
    if (found === null) continue;
    const kept = found[1] ?? '';
    const value = match.slice(kept.length);
    if (rule.looksSecret !== undefined && !rule.looksSecret(value)) {
      // Not a secret itself, yet it may hold a known token (`token=ghp_…`).
      const inner = scan(value, ruleSet().formats);
      return inner.count === 0 ? undefined : { start: offset, text: kept + inner.text, count: inner.count };
    }
    return { start: offset - (rule.back ?? 0), text: kept + redactionMark(rule.kind), count: 1 };
  }
  return undefined;
}
