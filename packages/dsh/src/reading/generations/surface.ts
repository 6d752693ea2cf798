/**
 * The surface operations of a v2+ log, re-expressed for rc.8. Every event
 * carrying a `surfaceOp` is a node of its generation's surface (v3 adds
 * `system/message`, v4 `developer/message`, and an unknown ignorable event
 * may carry one too), but only user, assistant and tool messages are nodes
 * of rc.8's. Replacement endpoints are seqs in every generation (rc.8's
 * `foldSurface` looks `start`/`end` up among the current nodes' seqs); v3
 * renamed them `startSeq`/`endSeq`. Seqs are kept, so a replacement that
 * shadows kept nodes names the first and last of them; one that shadowed
 * only nodes rc.8 does not have appends where they were, which is the end
 * of the surface or it is refused.
 */
import type { SurfaceOp } from '@deepseek-ai/dsh-session';
import { SessionLogReadError, corrupt } from './errors.js';
import type { Generation } from './generation.js';
import { isCount, isRecord } from './json.js';

/** A replacement span of the log's own generation, endpoints read into rc.8's names. */
interface Replacement {
  start: number;
  end: number;
}

/** Folds one log's surface and answers each event's rc.8 placement. */
export interface SurfaceTranslator {
  /**
   * Fold the event at `seq` whose generation's `surfaceOp` is `raw`; `kept`
   * says whether it stays a surface event for rc.8. Returns its rc.8
   * `surfaceOp` when kept, `undefined` otherwise.
   */
  place(seq: number, raw: unknown, kept: boolean): SurfaceOp | undefined;
}

export function createSurfaceTranslator(generation: Generation): SurfaceTranslator {
  const nodes: number[] = [];
  const keptNodes = new Set<number>();
  return {
    place(seq, raw, kept) {
      if (raw === undefined) return undefined;
      const op = readSurfaceOp(raw, generation, seq);
      if (kept) keptNodes.add(seq);
      if (op === 'append') {
        nodes.push(seq);
        return kept ? 'append' : undefined;
      }
      const at = nodes.indexOf(op.start);
      const keptShadowed = replace(nodes, op, seq).filter((node) => keptNodes.has(node));
      if (!kept) {
        if (keptShadowed.length > 0) throw unsupported(`event ${seq} replaces conversation messages with an event rc.8 has no place for`);
        return undefined;
      }
      if (keptShadowed.length > 0) return { op: 'replace', start: keptShadowed[0]!, end: keptShadowed.at(-1)! };
      if (nodes.slice(at + 1).some((node) => keptNodes.has(node))) {
        throw unsupported(`event ${seq} replaces only messages rc.8 does not hold, ahead of messages it does`);
      }
      return 'append';
    },
  };
}

/** Splice `seq` over the span; returns the shadowed nodes. */
function replace(nodes: number[], { start, end }: Replacement, seq: number): number[] {
  const first = nodes.indexOf(start);
  const last = nodes.indexOf(end);
  if (first === -1 || last === -1 || first > last) throw corrupt(`event ${seq} replaces ${start}..${end}, which is not a span of the current surface`);
  return nodes.splice(first, last - first + 1, seq);
}

function readSurfaceOp(raw: unknown, generation: Generation, seq: number): 'append' | Replacement {
  if (raw === 'append') return raw;
  const [startKey, endKey] = generation >= 3 ? ['startSeq', 'endSeq'] : ['start', 'end'];
  if (isRecord(raw) && raw['op'] === 'replace' && Object.keys(raw).length === 3) {
    const start = raw[startKey];
    const end = raw[endKey];
    if (isCount(start) && isCount(end)) return { start, end };
  }
  throw corrupt(`event ${seq} has a surfaceOp that is not a v${generation} surface operation`);
}

function unsupported(detail: string): SessionLogReadError {
  return new SessionLogReadError('SESSION_LOG_UNSUPPORTED', `its conversation cannot be read by dsh 0.1.0-rc.8: ${detail}`);
}
