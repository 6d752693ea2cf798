/**
 * sessref's cache directory, the one rule its title index, content index and
 * listing caches share (issue #37, item 3): an `XDG_CACHE_HOME` that is not
 * absolute is ignored, as the XDG Base Directory specification says, instead
 * of putting derived files under whatever folder a command runs in.
 */
import { describe, expect, it } from 'vitest';
import { sessrefCacheDirectory } from '../src/index.js';

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
