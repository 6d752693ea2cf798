/** What the walk needs of one record of the conversation tree. */
export interface ChainNode {
  readonly uuid: string;
  /** The record it follows, `null` for a root (a first message, a compaction boundary). */
  readonly parentUuid: string | null;
  /** A `user` or `assistant` record: only these can end a conversation. */
  readonly message: boolean;
  /** Not sidechain, team or meta: a leaf of the main line. */
  readonly mainLine: boolean;
}

/**
 * The current conversation of a transcript's records (in file order): the
 * path from the root to the newest main-line leaf, through `parentUuid`
 * only. A leaf is the nearest message at or above a record no other record
 * follows; the newest is the latest in the file, and when no leaf is on the
 * main line the latest leaf of any kind is taken. Of records sharing a uuid
 * (a resumed session replays them) the last one counts, at its position.
 *
 * Linear in the number of records, and it ends on any input: a walk that
 * comes back to a record it passed stops there, so a cycle cuts the path
 * instead of failing the transcript.
 */
export function currentChain<Node extends ChainNode>(records: readonly Node[]): Node[] {
  const nodes = lastOfEachUuid(records);
  const indexOf = new Map(nodes.map((node, index) => [node.uuid, index]));
  const parentOf = (index: number): number | undefined => {
    const parent = nodes[index]?.parentUuid;
    return typeof parent === 'string' ? indexOf.get(parent) : undefined;
  };
  const leaf = newestLeaf(nodes, parentOf);
  return leaf === undefined ? [] : pathTo(leaf, parentOf).flatMap((index) => nodes[index] ?? []);
}

/** The records with the last record of each uuid standing in for the others, at the last one's position. */
function lastOfEachUuid<Node extends ChainNode>(records: readonly Node[]): Node[] {
  const last = new Map<string, number>();
  records.forEach((record, index) => last.set(record.uuid, index));
  return records.filter((record, index) => last.get(record.uuid) === index);
}

/** The newest leaf of the main line, else the newest leaf at all; `undefined` when there is none. */
function newestLeaf(nodes: readonly ChainNode[], parentOf: (index: number) => number | undefined): number | undefined {
  const followed = new Set<number>();
  nodes.forEach((_node, index) => {
    const parent = parentOf(index);
    if (parent !== undefined) followed.add(parent);
  });
  const nearest = nearestMessageAbove(nodes, parentOf);
  let newest: number | undefined;
  let newestMain: number | undefined;
  nodes.forEach((_node, index) => {
    if (followed.has(index)) return;
    const leaf = nearest(index);
    if (leaf === undefined) return;
    if (newest === undefined || leaf > newest) newest = leaf;
    if (nodes[leaf]?.mainLine === true && (newestMain === undefined || leaf > newestMain)) newestMain = leaf;
  });
  return newestMain ?? newest;
}

/** No message at or above the record (a root reached, a missing parent, or a cycle of non-messages). */
const NONE = -1;
/** Not resolved yet. */
const UNKNOWN = -2;

/**
 * For each record, the nearest message at or above it. Each record is
 * resolved once and remembered, so the walks from many leaves that share a
 * long stretch of `progress` records stay linear in all.
 */
function nearestMessageAbove(nodes: readonly ChainNode[], parentOf: (index: number) => number | undefined): (index: number) => number | undefined {
  const resolved = new Int32Array(nodes.length).fill(UNKNOWN);
  const onWalk = new Uint8Array(nodes.length);
  return (start) => {
    const walked: number[] = [];
    let answer = NONE;
    for (let index: number | undefined = start; index !== undefined; index = parentOf(index)) {
      if (resolved[index] !== UNKNOWN) {
        answer = resolved[index] ?? NONE;
        break;
      }
      // Back on this walk: a cycle with no message in it.
      if (onWalk[index] === 1) break;
      onWalk[index] = 1;
      walked.push(index);
      if (nodes[index]?.message === true) {
        answer = index;
        break;
      }
    }
    for (const index of walked) resolved[index] = answer;
    return answer === NONE ? undefined : answer;
  };
}

/** The path from the root down to `leaf`, cut where the walk up would come back to a record it passed. */
function pathTo(leaf: number, parentOf: (index: number) => number | undefined): number[] {
  const passed = new Set<number>();
  const path: number[] = [];
  for (let index: number | undefined = leaf; index !== undefined && !passed.has(index); index = parentOf(index)) {
    passed.add(index);
    path.push(index);
  }
  return path.reverse();
}
