/**
 * A small test-side writer of one conversation in the shapes of each
 * generation (dsh-generations.md, "Events: what a text reader needs"): v0/v1
 * top-level `assistant/chunk` events cited by the message; v2 embedded
 * streams and range-encoded `sourceEventSeqs`; v3 a system head and
 * `startSeq`/`endSeq` replacements; v4 role-`tool` results and the
 * `compact-checkpoint` source. It also says what a snapshot of the
 * conversation must carry, from the conversation alone.
 */

import { constants, zstdCompressSync } from 'node:zlib';

/** A plain log as dsh's zstd writer frames it: one checksummed frame per record. */
export function framePerRecord(text: string): Buffer {
  const lines = text.split(/(?<=\n)/);
  return Buffer.concat(lines.map((line) => zstdCompressSync(Buffer.from(line), { params: { [constants.ZSTD_c_checksumFlag]: 1 } })));
}

export type Step =
  | { kind: 'exchange'; user: string; assistant: string; tool?: string }
  | { kind: 'compact'; span: number; summary: string }
  | { kind: 'title'; title: string };

type Json = Record<string, unknown>;

/** The session a generated log belongs to. */
export interface GeneratedSession {
  id: string;
  createdAt: number;
  cwd?: string;
}

const GENERATED: GeneratedSession = { id: 'generated', createdAt: 1, cwd: '/work' };

/** The JSONL text of `steps` as generation `generation` writes them, for `session`. */
export function writeGeneration(generation: number, steps: readonly Step[], session: GeneratedSession = GENERATED): string {
  const writer = createWriter(generation, session);
  for (const step of steps) {
    if (step.kind === 'exchange') writer.exchange(step);
    else if (step.kind === 'compact') writer.compact(step);
    else writer.emit('session/title', { title: step.title, messageSeqs: [], source: { kind: 'user' } });
  }
  return writer.text();
}

function createWriter(generation: number, session: GeneratedSession) {
  const header = { type: 'session', version: generation, ...session, ...(generation >= 2 ? { isSeeded: false } : {}), delegationDepth: 0 };
  const lines = [JSON.stringify(header)];
  // Conversation nodes of the surface, in order (a v3+ system head is never compacted).
  const surface: number[] = [];
  let seq = 0;
  let turn = 0;
  const emit = (type: string, data: Json, surfaceMeta: Json = {}): number => {
    lines.push(JSON.stringify({ type, seq, time: seq, data, ...surfaceMeta }));
    return seq++;
  };
  const message = (type: string, data: Json, sources: number[] = []): number => {
    const at = emit(type, data, { surfaceOp: 'append', ...(sources.length > 0 ? { sourceEventSeqs: encodeSeqs(sources, generation) } : {}) });
    surface.push(at);
    return at;
  };
  const text = (value: string) => [{ type: 'text', text: value }];
  return {
    emit,
    text: () => `${lines.join('\n')}\n`,
    exchange(step: Extract<Step, { kind: 'exchange' }>) {
      turn += 1;
      const position = { turn, step: 1 };
      emit('turn/start', { turn });
      emit('step/start', position);
      if (generation >= 3 && turn === 1) systemHead(emit, generation, position);
      message('user/message', { id: `u${seq}`, role: 'user', content: text(step.user), source: { kind: 'user' } });
      const chunks = generation < 2 ? [emit('assistant/chunk', { ...position, chunk: { type: 'text-delta', index: 0, text: step.assistant } })] : [];
      const assistant = { id: `a${seq}`, role: 'assistant', content: text(step.assistant), source: { kind: 'model', provider: 'p', model: 'm' } };
      message('assistant/message', { ...position, message: assistant, ...(generation >= 2 ? { stream: [] } : {}) }, chunks);
      if (step.tool !== undefined) toolExchange(emit, message, generation, position, step.tool);
      emit('step/end', position);
      emit('turn/end', { turn, reason: { kind: 'completed' } });
    },
    compact(step: Extract<Step, { kind: 'compact' }>) {
      const span = Math.min(step.span, surface.length);
      if (span === 0) return;
      const compactionId = `c${seq}`;
      const opened = emit('compaction/start', { compactionId, turn: null });
      const summary = emit('compaction/summary', { compactionId, summary: text(step.summary), shadowedRange: { start: surface[0], end: surface[span - 1] } });
      const shadowed = surface.splice(0, span);
      const checkpoint = emit(
        'user/message',
        { id: `k${seq}`, role: 'user', content: text(step.summary), source: generation === 4 ? { kind: 'compact-checkpoint', compactionId } : { kind: 'plugin', plugin: 'compact', compactionId } },
        { surfaceOp: replaceOp(generation, shadowed[0]!, shadowed.at(-1)!), sourceEventSeqs: encodeSeqs([opened, summary, ...shadowed].sort((a, b) => a - b), generation) },
      );
      surface.unshift(checkpoint);
      emit('compaction/end', { compactionId });
    },
  };
}

function systemHead(emit: (type: string, data: Json, meta?: Json) => number, generation: number, position: Json): void {
  const source = generation === 4 ? { kind: 'system-prompt' } : { kind: 'plugin', plugin: '@deepseek-ai/dsh-system-prompt' };
  emit('system/message', { ...position, message: { id: 'system', role: 'system', content: [], source } }, { surfaceOp: 'append' });
}

function toolExchange(
  emit: (type: string, data: Json) => number,
  message: (type: string, data: Json, sources?: number[]) => number,
  generation: number,
  position: Json,
  output: string,
): void {
  const callId = `call${position['turn']}`;
  const call = emit('tool/call', { ...position, callId, name: 'bash', arguments: '{}' });
  const content = [{ type: 'text', text: output }];
  const result =
    generation === 4
      ? { id: `t${call}`, role: 'tool', toolCallId: callId, content, source: { kind: 'tool', callId } }
      : { id: `t${call}`, role: 'user', content: [{ type: 'tool-result', toolCallId: callId, content }], source: { kind: 'tool', callId } };
  message('tool/result', { ...position, message: result }, [call]);
}

function replaceOp(generation: number, start: number, end: number): Json {
  return generation >= 3 ? { op: 'replace', startSeq: start, endSeq: end } : { op: 'replace', start, end };
}

/** From v2 the codec stores runs of three or more consecutive seqs as `[start, end]`. */
function encodeSeqs(seqs: number[], generation: number): unknown[] {
  if (generation < 2) return seqs;
  const encoded: unknown[] = [];
  for (let index = 0; index < seqs.length; ) {
    let end = index;
    while (end + 1 < seqs.length && seqs[end + 1] === seqs[end]! + 1) end += 1;
    if (end - index >= 2) encoded.push([seqs[index], seqs[end]]);
    else encoded.push(...seqs.slice(index, end + 1));
    index = end + 1;
  }
  return encoded;
}

/** What a snapshot of `steps` carries, in the projection's words (`role: text`). */
export function expectedSnapshot(steps: readonly Step[]): string[] {
  let nodes: { line?: string }[] = [];
  for (const step of steps) {
    if (step.kind === 'exchange') {
      nodes.push({ line: `user: ${step.user}` }, { line: `assistant: ${step.assistant}` });
      if (step.tool !== undefined) nodes.push({});
    } else if (step.kind === 'compact' && nodes.length > 0) {
      nodes = [{ line: `checkpoint: ${step.summary}` }, ...nodes.slice(Math.min(step.span, nodes.length))];
    }
  }
  return nodes.flatMap((node) => (node.line === undefined ? [] : [node.line]));
}
