/**
 * Differential plumbing: the same sessions in two hosts, one running our
 * plugin and one the official resolver (black box), and normalized outcomes
 * of each face so the two can be compared with one `toEqual`.
 */
import { vi } from 'vitest';
import type { Agent } from '@deepseek-ai/dsh-agent';
import type { ContentBlock, UserMessage } from '@deepseek-ai/dsh-llm';
import type { SessionId } from '@deepseek-ai/dsh-session';
import { createSession, makeAgent, runPreStep } from '@sessref/test-support';
import type { Host } from '@sessref/test-support';
import { writeSource, type SourceSpec } from './sources';
import { errorCodeOf, loadOurs, snapshotJson, type Scratch } from './support';
import { loadOracle } from './oracle';

interface ResolverConfig {
  maxReferences?: number;
  candidateLimit?: number;
  maxReferenceBytes?: number;
}

/** What both resolvers have in common (their classes are unrelated types). */
interface ResolverFace {
  listCandidates(agent: Agent, query?: string, limit?: number, signal?: AbortSignal): Promise<unknown[]>;
  remoteExportCandidates(agent: Agent, query: string, signal: AbortSignal): Promise<unknown[]>;
  prepare(
    agent: Agent,
    content: ContentBlock[],
    references: { sessionId: SessionId; label?: string }[],
    signal?: AbortSignal,
  ): Promise<{ content: ContentBlock[]; additionalContext?: UserMessage }>;
}

/** One host with one implementation loaded and a live target agent. */
export interface Side {
  readonly name: 'ours' | 'oracle';
  readonly host: Host;
  readonly resolver: ResolverFace;
  readonly agent: Agent;
}

interface TargetSpec {
  id: string;
  cwd?: string;
  createdAt: number;
}

export interface WorldSpec {
  target: TargetSpec;
  sources: readonly SourceSpec[];
  config: ResolverConfig;
  /**
   * Write the sources once into a JSONL root and open both hosts over it
   * (persisted-only reads); otherwise write them into each host live.
   */
  persisted: boolean;
}

/** Two hosts holding the same sessions, ours and the oracle. */
export async function twoSides(scratch: Scratch, world: WorldSpec): Promise<[Side, Side]> {
  let root: string | undefined;
  if (world.persisted) {
    root = await scratch.tempRoot();
    const writer = await scratch.host({ root, compression: 'none' });
    for (const spec of world.sources) await writer.flush(writeSource(writer, spec));
    await writer.dispose();
  }
  const side = async (name: Side['name']): Promise<Side> => {
    const host = await scratch.host(root === undefined ? {} : { root, compression: 'none' });
    if (root === undefined) for (const spec of world.sources) writeSource(host, spec);
    const target = createSession(host, world.target);
    const agent = makeAgent(host, target);
    const resolver = name === 'ours' ? await loadOurs(host, world.config) : (await loadOracle(host, world.config)).resolver;
    return { name, host, agent, resolver: resolver as unknown as ResolverFace };
  };
  return [await side('ours'), await side('oracle')];
}

/** A context message reduced to what must match exactly (the warning prose is each implementation's own). */
interface ContextOutcome {
  /** Field order too: the message is logged as JSON. */
  keys: string[];
  role: string;
  blocks: string[];
  json: string;
  source: unknown;
  /** The source as logged, key order included. */
  sourceJson: string;
}

/** `contentJson` is the readable content as serialized: key order must match too. */
export type PrepareOutcome = { code: string } | { content: ContentBlock[]; contentJson: string; context?: ContextOutcome };

function contextOutcome(message: UserMessage): ContextOutcome {
  return {
    keys: Object.keys(message),
    role: message.role,
    blocks: message.content.map((block) => block.type),
    json: snapshotJson(message),
    source: message.source,
    sourceJson: JSON.stringify(message.source),
  };
}

export async function prepareOutcome(
  side: Side,
  content: ContentBlock[],
  references: { sessionId: SessionId; label?: string }[],
  signal?: AbortSignal,
): Promise<PrepareOutcome> {
  try {
    const prepared = await side.resolver.prepare(side.agent, content, references, signal);
    const readable = { content: prepared.content, contentJson: JSON.stringify(prepared.content) };
    return prepared.additionalContext === undefined ? readable : { ...readable, context: contextOutcome(prepared.additionalContext) };
  } catch (error) {
    return { code: errorCodeOf(error) };
  }
}

/** An entered message: a context reduced as above, any other message as it is minus its fresh context id. */
type StepMessageOutcome =
  | { kind: 'message'; keys: string[]; id: string; content: ContentBlock[]; source: unknown; json: string }
  | ({ kind: 'context' } & ContextOutcome);

export type PreStepOutcome = { code: string } | { kind: 'reject' } | { kind: 'enter'; messages: StepMessageOutcome[] };

export async function preStepOutcome(side: Side, messages: readonly UserMessage[], options: { reject?: boolean; signal?: AbortSignal } = {}): Promise<PreStepOutcome> {
  try {
    const decision = await runPreStep(side.host, side.agent, messages, options);
    if (decision.kind === 'reject') return { kind: 'reject' };
    return {
      kind: 'enter',
      messages: decision.messages.map((message) =>
        message.source.kind === 'session-reference'
          ? { kind: 'context', ...contextOutcome(message) }
          : { kind: 'message', keys: Object.keys(message), id: message.id, content: message.content, source: message.source, json: JSON.stringify(message) },
      ),
    };
  } catch (error) {
    return { code: errorCodeOf(error) };
  }
}

/** Candidates and their JSON: the Remote face sends them over the wire, so key order is part of the contract. */
export type CandidatesOutcome = { code: string } | { candidates: unknown[]; json: string };

function candidatesOf(candidates: unknown[]): CandidatesOutcome {
  return { candidates, json: JSON.stringify(candidates) };
}

export async function candidatesOutcome(
  side: Side,
  query: string,
  limit: number | undefined,
  signal?: AbortSignal,
): Promise<CandidatesOutcome> {
  try {
    return candidatesOf(await side.resolver.listCandidates(side.agent, query, limit, signal));
  } catch (error) {
    return { code: errorCodeOf(error) };
  }
}

export async function remoteOutcome(side: Side, query: string, signal: AbortSignal): Promise<CandidatesOutcome> {
  try {
    return candidatesOf(await side.resolver.remoteExportCandidates(side.agent, query, signal));
  } catch (error) {
    return { code: errorCodeOf(error) };
  }
}

/** Run `work` and report its value or the code it failed with. */
export function outcomeOf<T>(work: () => T): { value: T } | { code: string } {
  try {
    return { value: work() };
  } catch (error) {
    return { code: errorCodeOf(error) };
  }
}

/** Make the title reads of `ids` fail (one rejected result each) while the rest of the batch reads normally. */
export function failTitleReads(host: Host, ids: ReadonlySet<string>): void {
  const query = host.sessionQuery;
  const read = query.readTitleSnapshots.bind(query);
  vi.spyOn(query, 'readTitleSnapshots').mockImplementation(async (sessionIds, signal) =>
    (await read(sessionIds, signal)).map((result) =>
      ids.has(result.sessionId) ? { sessionId: result.sessionId, status: 'rejected', reason: new Error('title unreadable') } : result,
    ),
  );
}
