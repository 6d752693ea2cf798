/**
 * sessref's cache directory, the one rule its title index, content index and
 * listing caches share (issue #37, item 3): an `XDG_CACHE_HOME` that is not
 * absolute is ignored, as the XDG Base Directory specification says, instead
 * of putting derived files under whatever folder a command runs in.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sessrefCacheDirectory, sessrefCacheFile } from '../src/index.js';

const HOME = '/home/u';

describe('sessrefCacheDirectory', () => {
  it('is $SESSREF_CACHE_DIR, else an absolute $XDG_CACHE_HOME/sessref, else ~/.cache/sessref', () => {
    expect(sessrefCacheDirectory({ SESSREF_CACHE_DIR: '/c', XDG_CACHE_HOME: '/x' }, HOME)).toBe('/c');
    expect(sessrefCacheDirectory({ XDG_CACHE_HOME: '/x' }, HOME)).toBe('/x/sessref');
    expect(sessrefCacheDirectory({}, HOME)).toBe('/home/u/.cache/sessref');
    expect(sessrefCacheDirectory({ XDG_CACHE_HOME: '' }, HOME)).toBe('/home/u/.cache/sessref');
  });

  it.each(['cache', './cache', '../cache', '.', '~/.cache', 'cache/../x'])('ignores the relative XDG_CACHE_HOME %j', (relative) => {
    expect(sessrefCacheDirectory({ XDG_CACHE_HOME: relative }, HOME)).toBe('/home/u/.cache/sessref');
  });
});

describe('sessrefCacheFile', () => {
  const env = { SESSREF_CACHE_DIR: '/c' };

  it('keys a subject by 64-bit FNV-1a: the published test vectors', () => {
    expect(sessrefCacheFile(env, 'titles', '', 'json')).toBe('/c/titles-cbf29ce484222325.json');
    expect(sessrefCacheFile(env, 'titles', 'a', 'json')).toBe('/c/titles-af63dc4c8601ec8c.json');
    expect(sessrefCacheFile(env, 'titles', 'foobar', 'json')).toBe('/c/titles-85944171f73967e8.json');
  });

  it('names one file per subject, in the cache directory, with 16 hex digits for any subject', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (subject) => {
        const file = sessrefCacheFile(env, 'content', subject, 'v1.sqlite', HOME);
        expect(file).toMatch(/^\/c\/content-[0-9a-f]{16}\.v1\.sqlite$/);
        expect(sessrefCacheFile(env, 'content', subject, 'v1.sqlite', HOME)).toBe(file);
      }),
    );
    // Roots that differ in one character get different files.
    expect(new Set(['/r/a', '/r/b', '/r/ab', '/r/a/', '/R/a'].map((root) => sessrefCacheFile(env, 'titles', root, 'json'))).size).toBe(5);
  });
});
