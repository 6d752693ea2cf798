import { randomUUID } from 'node:crypto';
import { CompactionId, compactCheckpointSource } from '@deepseek-ai/dsh-compaction';
import { CallId, createAssistantMessage, createToolResultMessage, createUserMessage, type ContentBlock } from '@deepseek-ai/dsh-llm';
import type { Session } from '@deepseek-ai/dsh-session';
import type {} from '@deepseek-ai/dsh-session-title';

/** A tool call made during an exchange, with its result. */
export interface ToolUse {
  name: string;
  arguments: Record<string, unknown>;
  result: string;
}

export interface Exchange {
  user: string;
  assistant: string;
  reasoning?: string;
  tool?: ToolUse;
}

/**
 * Writes well-formed dsh turns through the real `Session.append`: the same
 * event sequence the agent loop records (turn and step brackets, tool call
 * and result pairs, log-only titles, compaction brackets).
 */
export class SessionWriter {
  private turn = 0;

  constructor(readonly session: Session) {}

  title(title: string): void {
    this.session.append('session/title', { title, messageSeqs: [], source: { kind: 'user' } });
  }

  exchange({ user, assistant, reasoning, tool }: Exchange): void {
    const turn = ++this.turn;
    this.session.append('turn/start', { turn });
    this.session.append('user/message', createUserMessage({ content: [{ type: 'text', text: user }], source: { kind: 'user' } }), {
      surfaceOp: 'append',
    });
    let step = 1;
    if (tool) {
      this.toolStep(turn, step++, tool, reasoning);
      reasoning = undefined;
    }
    this.session.append('step/start', { turn, step });
    const content: ContentBlock[] = [...(reasoning ? [{ type: 'reasoning' as const, text: reasoning }] : []), { type: 'text', text: assistant }];
    this.assistant(turn, step, content);
    this.session.append('step/end', { turn, step });
    this.session.append('turn/end', { turn, reason: { kind: 'completed' } });
  }

  /** A plugin-injected user message (never part of a reference). */
  injected(plugin: string, text: string): void {
    const turn = ++this.turn;
    this.session.append('turn/start', { turn });
    this.session.append('user/message', createUserMessage({ content: [{ type: 'text', text }], source: { kind: 'plugin', plugin } }), {
      surfaceOp: 'append',
    });
    this.session.append('turn/end', { turn, reason: { kind: 'completed' } });
  }

  /** Replace the whole current surface with one checkpoint, as a between-turn compaction does. */
  compact(summary: string): void {
    const nodes = this.session.surface.nodes;
    const start = nodes[0];
    const end = nodes[nodes.length - 1];
    if (start === undefined || end === undefined) throw new Error('nothing to compact');
    const compactionId = CompactionId(randomUUID());
    const lifecycle = { compactionId, turn: null };
    const startEvent = this.session.append('compaction/start', lifecycle);
    const summaryBlocks: ContentBlock[] = [{ type: 'text', text: summary }];
    const summaryEvent = this.session.append('compaction/summary', {
      compactionId,
      summary: summaryBlocks,
      shadowedRange: { start, end },
      shadowedSeqs: [...nodes],
      shadowedTokenCount: Math.ceil(summary.length / 4),
      provider: 'sessref-seed',
      model: 'seed-summarizer',
    });
    this.session.append('user/message', createUserMessage({ content: summaryBlocks, source: compactCheckpointSource(compactionId) }), {
      surfaceOp: { op: 'replace', start, end },
      sourceEventSeqs: [startEvent.seq, summaryEvent.seq, ...nodes],
    });
    this.session.append('compaction/end', lifecycle);
  }

  private toolStep(turn: number, step: number, tool: ToolUse, reasoning: string | undefined): void {
    this.session.append('step/start', { turn, step });
    const callId = CallId(`call-${randomUUID()}`);
    const args = JSON.stringify(tool.arguments);
    this.assistant(turn, step, [
      ...(reasoning ? [{ type: 'reasoning' as const, text: reasoning }] : []),
      { type: 'tool-call', id: callId, name: tool.name, arguments: args },
    ]);
    this.session.append('tool/call', { turn, step, callId, name: tool.name, arguments: args });
    const message = createToolResultMessage({ callId, content: [{ type: 'text', text: tool.result }], isError: false });
    this.session.append('tool/result', { turn, step, message }, { surfaceOp: 'append' });
    this.session.append('step/end', { turn, step });
  }

  private assistant(turn: number, step: number, content: ContentBlock[]): void {
    const message = createAssistantMessage({ content, source: { provider: 'deepseek', model: 'deepseek-chat' } });
    this.session.append('assistant/message', { turn, step, message }, { surfaceOp: 'append' });
  }
}
