/** Deterministic prose, so every run and both implementations see the same bytes. */

const WORDS = (
  'the a session reference context model agent message snapshot budget source target mention label ' +
  'parser cache deploy review migration index title query prepare retention projection surface ' +
  'quickly carefully before after while because although however therefore meanwhile ' +
  'build test ship fix measure compare read write list open close keep drop trim'
).split(' ');

/** mulberry32: a tiny seeded PRNG; quality is irrelevant, determinism is not. */
export function random(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Words from `next` until at least `length` characters. Built with join() so
 * the result is one flat string, not a slice or rope over shared text that
 * would make the source look smaller in memory than it is.
 */
export function prose(next, length, prefix = '') {
  const words = prefix === '' ? [] : [prefix];
  let size = prefix.length;
  while (size < length) {
    const word = WORDS[Math.floor(next() * WORDS.length)];
    words.push(word);
    size += word.length + 1;
  }
  return words.join(' ');
}

/** ~1 KB message `index` of a conversation (even: user, odd: assistant). */
export function conversationText(seed) {
  const next = random(seed);
  return (index) => prose(next, 1000, `${index % 2 === 0 ? 'user' : 'assistant'} message ${index}:`);
}

/**
 * `count` distinct three-word phrases of `words` (no word twice in a row), in a
 * fixed shuffled order, so every run asks the same phrases in the same order;
 * `join` writes one phrase (default: words with spaces).
 */
export function phrasesOf(words, count, join = (parts) => parts.join(' ')) {
  const triples = words.flatMap((a) => words.flatMap((b) => words.filter((c) => c !== b && b !== a).map((c) => join([a, b, c]))));
  const next = random(4242);
  for (let index = triples.length - 1; index > 0; index -= 1) {
    const other = Math.floor(next() * (index + 1));
    [triples[index], triples[other]] = [triples[other], triples[index]];
  }
  if (count > triples.length) throw new Error(`only ${triples.length} distinct phrases`);
  return triples.slice(0, count);
}
