import type { Context } from '@deepseek-ai/cordis';
import { Inbox, agentEvents, emitAgentEvent } from '@deepseek-ai/dsh-agent';
import type { Agent, AgentOptions, AgentStatus, InboxTarget, PreStepDecision } from '@deepseek-ai/dsh-agent';
import type { UserMessage } from '@deepseek-ai/dsh-llm';
import type { Session } from '@deepseek-ai/dsh-session';
import { createScope, type Scope } from '@deepseek-ai/dsh-scope';

/** Options for a {@link StepAgent}. */
export interface StepAgentOptions {
  /**
   * Record the agent in `ctx.agents` (emitting `agent/created`), as the loop's
   * factory does, until {@link StepAgent.dispose} or the host's disposal
   * (default `false`: a one-step handle nothing needs to look up).
   */
  register?: boolean;
  /** The provider route and model the agent reports (default none). */
  agent?: AgentOptions;
}

/**
 * A live dsh `Agent` with no loop behind it: the agent `agent/pre-step`
 * listeners receive when sessref (or a test) runs a step itself. Its session,
 * inbox and scope are the host's real objects: `id === session.id`, the inbox
 * projects the session and emits the `agent/inbox/*` events, the scope is
 * keyed by the agent (with `ctx.agent` set, as the loop does). There is no
 * driver: `send`/`followup`/`steer`/`inject` only queue into the inbox, and
 * `cancel`/`whenIdle`/`runMaintenance` are inert.
 */
export class StepAgent implements Agent {
  readonly id: Agent['id'];
  readonly options: AgentOptions;
  readonly status: AgentStatus = 'idle';
  readonly inbox: Inbox;
  readonly ctx: Context;
  private readonly scope: Scope;
  private readonly unregister: (() => void) | undefined;

  constructor(
    host: Context,
    readonly session: Session,
    options: StepAgentOptions = {},
  ) {
    this.id = session.id;
    this.options = options.agent ?? {};
    // The agent is its own scope key, so agent-scoped listeners see its steps.
    this.scope = createScope(host, this);
    this.ctx = this.scope.ctx;
    Object.defineProperty(this.ctx, 'agent', { value: this, configurable: true });
    this.inbox = new Inbox(session, {
      inserted: (message) => emitAgentEvent(host, this, 'agent/inbox/inserted', { message }),
      discarded: (message) => emitAgentEvent(host, this, 'agent/inbox/discarded', { message }),
      claimed: (message, turn) => emitAgentEvent(host, this, 'agent/inbox/claimed', { message, turn }),
    });
    this.unregister = options.register === true ? host.agents.register(this) : undefined;
  }

  cancel(): void {}

  async whenIdle(): Promise<void> {}

  runMaintenance<T>(task: (signal: AbortSignal) => Promise<T>): Promise<T> {
    return task(new AbortController().signal);
  }

  send(message: UserMessage, target: InboxTarget): void {
    this.inbox.append(target, message);
  }

  followup(message: UserMessage): void {
    this.send(message, 'next-turn');
  }

  steer(message: UserMessage): void {
    this.send(message, 'next-step');
  }

  inject(message: UserMessage): void {
    this.send(message, 'next-step');
  }

  /** Leave `ctx.agents` (when registered) and unwind the agent's scope. */
  async dispose(): Promise<void> {
    this.unregister?.();
    await this.scope.dispose();
  }
}

/** What one proposed step carries into `agent/pre-step`. */
export interface PreStepPayload {
  messages: UserMessage[];
  turn: number;
  step: number;
  signal: AbortSignal;
}

/**
 * Dispatch the real `agent/pre-step` waterfall through `agentEvents()` (the
 * agent's scope carrier as `this`), as the agent loop does. The innermost
 * `next` is the loop default `{ kind: 'enter', messages: payload.messages }`.
 * @returns the outermost listener's decision.
 */
export function dispatchPreStep(host: Context, agent: Agent, payload: PreStepPayload): Promise<PreStepDecision> {
  return agentEvents(host, agent).waterfall('agent/pre-step', payload, async () => ({ kind: 'enter', messages: payload.messages }));
}

/**
 * Run one proposed step (step 1 of `turn`) through the real `agent/pre-step`
 * waterfall with a one-step {@link StepAgent} over `session`, and return the
 * decision of the outermost listener.
 */
export async function runDetachedPreStep(
  ctx: Context,
  session: Session,
  messages: UserMessage[],
  turn: number,
  signal: AbortSignal,
): Promise<PreStepDecision> {
  const agent = new StepAgent(ctx, session);
  try {
    return await dispatchPreStep(ctx, agent, { messages, turn, step: 1, signal });
  } finally {
    await agent.dispose();
  }
}
