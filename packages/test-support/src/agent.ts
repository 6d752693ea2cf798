/**
 * Agents and steps for the suites: `@sessref/host`'s loop-less `StepAgent`
 * registered in the test host, and the real `agent/pre-step` waterfall,
 * optionally recorded in the log as the loop records it.
 */
import type { Agent, AgentOptions, PreStepDecision } from '@deepseek-ai/dsh-agent';
import type { UserMessage } from '@deepseek-ai/dsh-llm';
import type { Session } from '@deepseek-ai/dsh-session';
import { errorCode } from '@sessref/core';
import { StepAgent, betweenSteps, currentTurn, dispatchPreStep, endTurn } from '@sessref/host';
import type { Host } from './host.js';

/**
 * A {@link StepAgent} over a live session, registered in `ctx.agents`
 * (emitting `agent/created`). It is unregistered when the host is disposed,
 * or earlier through the agent's `dispose()`.
 */
export function makeAgent(host: Host, session: Session, options: AgentOptions = {}): StepAgent {
  return new StepAgent(host.ctx, session, { register: true, agent: options });
}

/** Options for {@link runPreStep}. */
export interface RunPreStepOptions {
  signal?: AbortSignal;
  /** Proposed turn (default: the open turn, else the next turn number). */
  turn?: number;
  /** Proposed step (default 1). */
  step?: number;
  /**
   * Mount a temporary downstream listener that rejects the step
   * (`{ kind: 'reject' }` without calling `next()`), like a policy plugin.
   */
  reject?: boolean;
  /**
   * Record the step as the loop would: open the turn before dispatch, append
   * every entered message as a `user/message` after `enter`, and close the turn
   * (`blocked` on reject, `error`/`aborted` on failure) otherwise.
   */
  record?: boolean;
}

/**
 * Dispatch the real `agent/pre-step` waterfall ({@link dispatchPreStep}),
 * optionally recorded in the log as the loop records it, or rejected downstream.
 * @param host - host whose listeners run.
 * @param agent - subject agent.
 * @param messages - claimed batch proposed for the step.
 * @param options - signal, coordinates, rejection and recording switches.
 * @returns the outermost decision.
 */
export async function runPreStep(
  host: Host,
  agent: Agent,
  messages: readonly UserMessage[],
  options: RunPreStepOptions = {},
): Promise<PreStepDecision> {
  const turn = options.turn ?? currentTurn(agent.session);
  if (options.record === true) betweenSteps(agent.session);
  const signal = options.signal ?? new AbortController().signal;
  const payload = { messages: [...messages], turn, step: options.step ?? 1, signal };
  const removeRejecter = options.reject === true
    ? host.ctx.on('agent/pre-step', async () => ({ kind: 'reject' as const }))
    : undefined;
  let decision: PreStepDecision;
  try {
    decision = await dispatchPreStep(host.ctx, agent, payload);
  } catch (error) {
    if (options.record === true) {
      endTurn(agent.session, signal.aborted
        ? { kind: 'aborted', reason: { kind: 'user' } }
        : { kind: 'error', error: { message: errorMessage(error), code: errorCode(error) ?? 'UNKNOWN' } });
    }
    throw error;
  } finally {
    removeRejecter?.();
  }
  if (options.record === true) {
    if (decision.kind === 'enter') {
      for (const message of decision.messages) agent.session.append('user/message', message, { surfaceOp: 'append' });
    } else {
      endTurn(agent.session, { kind: 'blocked' });
    }
  }
  return decision;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
