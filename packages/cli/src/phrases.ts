/**
 * The phrase a content hit suggests for an excerpt: where its snippet
 * matched, a few words from there on, so the phrase names the discussion
 * the hit found and an excerpt can be centred on it. What `sessref mcp`'s
 * `around` argument completes with, and what the inspector's "Cite this
 * part" cites. Browser-safe.
 */
import type { SessionReferenceContentHit } from '@sessref/core';

/** Words a suggested phrase keeps from the match on: enough to tell hits apart, short enough to read in a menu. */
const PHRASE_WORDS = 6;

/**
 * The phrase a hit suggests: its snippet from the first match on, up to
 * {@link PHRASE_WORDS} words, without the snippet's closing ellipsis.
 * Spaces in a phrase match any whitespace in the message (see the core's
 * `selectExcerpt`), so a snippet's one-line text finds the message again.
 */
export function phraseOfHit(hit: Pick<SessionReferenceContentHit, 'snippet' | 'ranges'>): string {
  const from = hit.ranges[0]?.[0] ?? 0;
  return hit.snippet.slice(from).replace(/…$/u, '').split(' ').filter((word) => word !== '').slice(0, PHRASE_WORDS).join(' ');
}

/** Distinct phrases of `hits`, best hit first, the empty ones left out. */
export function phrasesOfHits(hits: readonly Pick<SessionReferenceContentHit, 'snippet' | 'ranges'>[]): string[] {
  return [...new Set(hits.map(phraseOfHit).filter((phrase) => phrase !== ''))];
}
