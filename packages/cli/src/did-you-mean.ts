/**
 * `; did you mean "list"?`: the names closest to what was typed, for a
 * mistyped command, flag or session id. Empty when none is close enough to
 * be what was meant.
 */
export function didYouMean(typed: string, names: Iterable<string>, spell: (name: string) => string): string {
  const wanted = typed.toLowerCase();
  let best = Number.POSITIVE_INFINITY;
  let closest: string[] = [];
  for (const name of names) {
    // A name whose length is more than two from the typed word's is more than two edits from it: not measured.
    if (Math.abs(name.length - wanted.length) > 2) continue;
    const distance = editDistance(wanted, name.toLowerCase());
    if (distance < best) [best, closest] = [distance, [name]];
    else if (distance === best) closest.push(name);
  }
  // Two edits turn any short word into another; a suggestion must keep at least half of what was typed.
  if (best > 2 || best * 2 > typed.length || closest.length > MAX_SUGGESTIONS) return '';
  return `; did you mean ${closest.map(spell).join(' or ')}?`;
}

/** More equally close names than this say nothing about which was meant. */
const MAX_SUGGESTIONS = 3;

/** Optimal string alignment distance: insertions, deletions, substitutions and swaps of neighbours each cost one. */
function editDistance(a: string, b: string): number {
  const x = Array.from(a);
  const y = Array.from(b);
  // rows[i][j]: the distance between the first i characters of x and the first j of y.
  const rows = Array.from({ length: x.length + 1 }, (_, i) => Array.from({ length: y.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= x.length; i++) {
    for (let j = 1; j <= y.length; j++) {
      const cost = x[i - 1] === y[j - 1] ? 0 : 1;
      let distance = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && x[i - 1] === y[j - 2] && x[i - 2] === y[j - 1]) distance = Math.min(distance, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = distance;
    }
  }
  return rows[x.length]![y.length]!;
}
