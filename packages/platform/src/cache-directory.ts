import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';

/**
 * sessref's cache directory, where its title and content indexes and the
 * agents' listing caches live: `$SESSREF_CACHE_DIR`, else
 * `$XDG_CACHE_HOME/sessref`, else `<home>/.cache/sessref`. Never an agent's
 * folder nor a dsh root. An `XDG_CACHE_HOME` that is not an absolute path is
 * ignored, as the XDG Base Directory specification requires: a relative one
 * would scatter derived files under whatever folder a command runs in.
 */
export function sessrefCacheDirectory(env: Readonly<Record<string, string | undefined>>, home: string = homedir()): string {
  const xdg = env['XDG_CACHE_HOME'];
  return env['SESSREF_CACHE_DIR'] || join(xdg !== undefined && isAbsolute(xdg) ? xdg : join(home, '.cache'), 'sessref');
}

/**
 * The cache file about `subject` (a root, an agent's folder):
 * `<prefix>-<key>.<suffix>` in {@link sessrefCacheDirectory}, one per
 * subject. The key only spreads subjects over names: every such file records
 * the subject it was written for and is not used for another, so two
 * subjects that share a key cost a rebuild, never a wrong answer.
 */
export function sessrefCacheFile(env: Readonly<Record<string, string | undefined>>, prefix: string, subject: string, suffix: string, home?: string): string {
  return join(sessrefCacheDirectory(env, home), `${prefix}-${fnv1a64(subject)}.${suffix}`);
}

/**
 * Where sessref keeps what it knows of other machines: `remotes/` in
 * {@link sessrefCacheDirectory}, holding `remotes.json` (each remote's name,
 * ssh destination, options and last sync) and one folder per remote,
 * `<name>/home/`, the read-only mirror of that host's agent folders laid out
 * as under its home. Deleting it forgets the remotes and their mirrors.
 */
export function sessrefRemotesDirectory(env: Readonly<Record<string, string | undefined>>, home?: string): string {
  return join(sessrefCacheDirectory(env, home), 'remotes');
}

const FNV_OFFSET_HIGH = 0xcbf29ce4;
const FNV_OFFSET_LOW = 0x84222325;

/**
 * FNV-1a over the UTF-16 code units of `text`, 64 bits as 16 hex digits, in
 * two 32-bit halves (the prime is 2^40 + 0x1b3). Not a digest: a name (of a
 * file, of a build), which `node:crypto` (several milliseconds to load) need
 * not be loaded for.
 */
export function fnv1a64(text: string): string {
  let high = FNV_OFFSET_HIGH;
  let low = FNV_OFFSET_LOW;
  for (let index = 0; index < text.length; index += 1) {
    low = (low ^ text.charCodeAt(index)) >>> 0;
    // (high, low) * (2^40 + 0x1b3) mod 2^64: the low word's product carries into the high word.
    const lowProduct = low * 0x1b3;
    const carry = Math.floor(lowProduct / 0x1_0000_0000);
    high = (Math.imul(high, 0x1b3) + Math.imul(low, 0x100) + carry) >>> 0;
    low = lowProduct >>> 0;
  }
  return high.toString(16).padStart(8, '0') + low.toString(16).padStart(8, '0');
}
