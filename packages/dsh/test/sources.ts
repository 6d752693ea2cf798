/**
 * Declarative source sessions: a {@link SourceSpec} describes a conversation
 * as data, and {@link writeSource} writes it through the real session log
 * helpers of `host.ts`. Writing is deterministic (ids of messages and tool
 * calls aside), so the same spec written into two hosts yields the same
 * surfaces and the same raw-log seqs.
 */
import type { Session } from '@deepseek-ai/dsh-session';
import { CallId, type ContentBlock } from '@deepseek-ai/dsh-llm';
import type { SessionReferenceSource } from '@sessref/core';
import {
  appendAssistant,
  appendInjected,
  appendToolResult,
  appendUser,
  compact,
  createSession,
  endTurn,
  setTitle,
} from '@sessref/test-support';
import type { Host } from '@sessref/test-support';

/** One block of assistant content: visible text or hidden reasoning. */
export type AssistantBlockSpec = { type: 'text'; text: string } | { type: 'reasoning'; text: string };

/** One tool call of an assistant step and the result written right after it. */
export interface ToolSpec {
  name: string;
  result: string;
  isError: boolean;
}

/** One thing that happens in a source session, in log order. */
export type SourceStep =
  /** A direct human prompt; each string is one text block (an empty list is a message without blocks). */
  | { kind: 'user'; blocks: string[] }
  /** One model step: text and reasoning blocks, then tool calls each paired with its result. */
  | { kind: 'assistant'; blocks: AssistantBlockSpec[]; tools: ToolSpec[]; interrupted: boolean }
  /** Context another plugin injected (`source: { kind: 'plugin' }`). */
  | { kind: 'injected'; text: string; plugin: string }
  /** A snapshot this plugin injected earlier (`source: { kind: 'session-reference' }`). */
  | { kind: 'reference-context'; text: string }
  /** Close the open turn. */
  | { kind: 'end-turn' }
  /** A compaction between turns keeping `retain` trailing surface nodes. */
  | { kind: 'compact'; summary: string; retain: number; framed: boolean }
  /** A user rename (log-only `session/title`). */
  | { kind: 'title'; title: string };

/** A whole source session. */
export interface SourceSpec {
  id: string;
  cwd?: string;
  createdAt: number;
  steps: SourceStep[];
}

/** An earlier snapshot's durable source record, as a referenced session would carry it. */
const EARLIER_SNAPSHOT_SOURCE: SessionReferenceSource = {
  kind: 'session-reference',
  form: 'recall',
  version: 1,
  references: [],
};

/**
 * Write `spec` into `host` as a live session and close its last turn.
 * Steps the real log would refuse in that position (a compaction with nothing
 * to compact, a title that normalizes to nothing) are skipped, the same way in
 * every host.
 */
export function writeSource(host: Host, spec: SourceSpec): Session {
  const session = createSession(host, {
    id: spec.id,
    createdAt: spec.createdAt,
    ...(spec.cwd === undefined ? {} : { cwd: spec.cwd }),
  });
  for (const step of spec.steps) writeStep(session, step);
  endTurn(session);
  return session;
}

/** Append one step to a live session (see {@link SourceStep}). */
function writeStep(session: Session, step: SourceStep): void {
  switch (step.kind) {
    case 'user':
      appendUser(session, step.blocks.map((text): ContentBlock => ({ type: 'text', text })));
      return;
    case 'assistant': {
      // Call ids derive from the log position, so every host writes the same ones.
      const calls = step.tools.map((tool, index): ContentBlock => ({
        type: 'tool-call',
        id: CallId(`call-${session.seq}-${index}`),
        name: tool.name,
        arguments: JSON.stringify({ tool: tool.name }),
      }));
      const { callIds } = appendAssistant(session, { content: [...step.blocks, ...calls], interrupted: step.interrupted });
      step.tools.forEach((tool, index) => appendToolResult(session, callIds[index]!, tool.result, { isError: tool.isError }));
      return;
    }
    case 'injected':
      appendInjected(session, step.text, { plugin: step.plugin });
      return;
    case 'reference-context':
      appendUser(session, step.text, { source: EARLIER_SNAPSHOT_SOURCE });
      return;
    case 'end-turn':
      endTurn(session);
      return;
    case 'compact':
      endTurn(session);
      if (session.surface.nodes.length === 0) return;
      try {
        compact(session, step.summary, { retain: Math.min(step.retain, session.surface.nodes.length - 1), framed: step.framed });
      } catch (error) {
        // Only the harness's own pre-checks throw here, before anything is appended.
        if (!(error instanceof Error) || !error.message.startsWith('compact:')) throw error;
      }
      return;
    case 'title':
      try {
        setTitle(session, step.title);
      } catch (error) {
        if (!(error instanceof Error) || !error.message.startsWith('setTitle:')) throw error;
      }
      return;
  }
}
