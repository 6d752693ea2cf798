import type { Context } from '@deepseek-ai/cordis';
import { Inbox, agentEvents, type Agent, type AgentOptions, type InboxTarget, type PreStepDecision } from '@deepseek-ai/dsh-agent';
import type { UserMessage } from '@deepseek-ai/dsh-llm';
import type { Session } from '@deepseek-ai/dsh-session';
import { createScope, type Scope } from '@deepseek-ai/dsh-scope';

/**
 * The agent handle `agent/pre-step` listeners receive. sessref drives no
 * model, so there is no loop behind it: the session, inbox and scope are the
 * host's real objects and the lifecycle methods are inert.
 */
class CommandAgent implements Agent {
  readonly id;
  readonly options: AgentOptions = {};
  readonly status = 'idle' as const;
  readonly inbox: Inbox;
  readonly ctx: Context;
  private readonly scope: Scope;

  constructor(
    host: Context,
    readonly session: Session,
  ) {
    this.id = session.id;
    // The agent is its own scope key, so agent-scoped listeners see this step.
    this.scope = createScope(host, this);
    this.ctx = this.scope.ctx;
    this.inbox = new Inbox(session, { inserted() {}, discarded() {}, claimed() {} });
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

  dispose(): Promise<void> {
    return this.scope.dispose();
  }
}

/**
 * Run one proposed step through the real `agent/pre-step` waterfall, as the
 * agent loop does, and return the decision of the outermost listener.
 */
export async function runPreStep(
  ctx: Context,
  session: Session,
  messages: UserMessage[],
  turn: number,
  signal: AbortSignal,
): Promise<PreStepDecision> {
  const agent = new CommandAgent(ctx, session);
  try {
    return await agentEvents(ctx, agent).waterfall('agent/pre-step', { messages, turn, step: 1, signal }, async () => ({
      kind: 'enter',
      messages,
    }));
  } finally {
    await agent.dispose();
  }
}
