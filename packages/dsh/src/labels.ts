/**
 * Candidate titles from a 0.1.7 host's projections, read without folding any
 * log: the live projection registry for a session the store holds, else the
 * durable projection cache's checkpoint for a cold one. Both services are
 * optional and typed here by the little this module calls, so the plugin
 * still builds and runs against rc.8's packages.
 */
import type { Context } from '@deepseek-ai/cordis';
import { SessionId } from '@deepseek-ai/dsh-session';
import type { CandidateTitles, SessionHeaderLike } from '@sessref/core';
import { isJsonObject } from '@sessref/core/internal';

/** The projection units a label needs: the title, and a subagent's creation label for the display title. */
const LABEL_UNITS: readonly string[] = ['title', 'subagent'];

/**
 * The titles `header`'s session projections hold, or `undefined` when the
 * host has no projection that answers for it (then the caller reads titles
 * as rc.8 did). An untitled session answers with no title, labelled by its id.
 */
export function projectedTitles(ctx: Context, header: SessionHeaderLike): CandidateTitles | undefined {
  const snapshot = projectionSnapshot(ctx, header);
  if (!isJsonObject(snapshot) || !isJsonObject(snapshot['values'])) return undefined;
  const { title, subagent } = snapshot['values'];
  const displayTitle = isJsonObject(subagent) ? subagent['label'] : undefined;
  return {
    ...(typeof title === 'string' && { title }),
    ...(typeof displayTitle === 'string' && { displayTitle }),
  };
}

/** Attachment is decided now, not at listing time: a session that attached since answers from its live cut. */
function projectionSnapshot(ctx: Context, header: SessionHeaderLike): unknown {
  const live = ctx.get('sessions')?.get(SessionId(header.id));
  // rc.8's `snapshot(session)` and `cachedSnapshot(header)` read every unit and ignore the list; 0.1.7's take it.
  if (live !== undefined) {
    const registry: unknown = ctx.get('sessionProjections');
    if (registry !== undefined) return call(registry, 'snapshot', live, LABEL_UNITS);
  }
  const cache: unknown = ctx.get('sessionProjectionCache');
  return cache === undefined ? undefined : call(cache, 'cachedSnapshot', header, LABEL_UNITS);
}

/** `service[method](...args)` when the service has such a method, else `undefined`. */
function call(service: unknown, method: string, ...args: unknown[]): unknown {
  if (typeof service !== 'object' || service === null) return undefined;
  const member: unknown = Reflect.get(service, method);
  return typeof member === 'function' ? Reflect.apply(member, service, args) : undefined;
}
