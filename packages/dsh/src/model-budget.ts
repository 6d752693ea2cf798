/**
 * The 0.1.7 / 0.2 contract's model-relative budget on a dsh host: the
 * agent's model route, its context window from the host's model metadata,
 * and the 64 KiB floor whenever either is unknown.
 */
import type { Context } from '@deepseek-ai/cordis';
import type { Agent } from '@deepseek-ai/dsh-agent';
import { errorCode, modelRelativeBudget } from '@sessref/core';

/**
 * Bytes one source may take for `agent`'s model: `max(64 KiB, floor(context
 * window × 4 × fraction))`. The route is the agent's `options.provider` and
 * `options.model`; a host without `ctx.llm`, an agent without a route, a
 * route without an adapter (`NO_ADAPTER`: stream middleware may serve it)
 * or a model without a known context gets the floor. Any other failure of
 * the metadata lookup propagates: the step must not run on a budget nobody
 * decided.
 */
export async function modelBudget(ctx: Context, agent: Agent, fraction: number, signal: AbortSignal | undefined): Promise<number> {
  const { provider, model } = agent.options;
  const llm = ctx.get('llm');
  if (provider === undefined || model === undefined || llm === undefined) return modelRelativeBudget(undefined, fraction);
  try {
    const info = await llm.resolveModelInfo(provider, model, signal);
    return modelRelativeBudget(info.context?.contextWindow, fraction);
  } catch (error) {
    if (errorCode(error) === 'NO_ADAPTER') return modelRelativeBudget(undefined, fraction);
    throw error;
  }
}
