/**
 * Every shared sample log (../shared/dsh-log-samples, see its SOURCES.md) is
 * read, or refused with its code, and what a snapshot of it carries is
 * stated here, through dsh 0.1.0-rc.8's own restore. Each readable sample is
 * read again as dsh's zstd writer frames it (one checksummed frame per
 * record) and must give the same result.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSessionLog, type SessionLogReadCode } from '@sessref/dsh/log-generations';
import { SAMPLES, framePerRecord, projectThroughRc8, scratchDirectory, titleOf, unscrub, type Line } from './generation-support.js';

const write = scratchDirectory();

interface Readable {
  file: string;
  generation: number;
  snapshot: Line[];
  title?: string;
  /** Scrubbed upstream snapshots: refused as they are, read after {@link unscrub}. */
  scrubbed?: SessionLogReadCode;
}

const CHECKPOINT_TEXT =
  'This is an automatically generated checkpoint condensing an earlier span of the conversation to free up context. Treat the captured context as established background and build on it without restating it. Continue the task directly from the messages that follow, without acknowledging this checkpoint.\n\n<compacted-summary>\nThe request established a durable compaction premise.\n</compacted-summary>';
const SYNTHETIC_V3 = ['user: SYNTHETIC fixture direct user message', 'assistant: SYNTHETIC fixture assistant reply'];
const FOLLOW_UP = ['user: Check that the Preview workspace can support follow-up tasks.', 'assistant: This child is continuable and ready for another verification turn.'];
const VFS = 'multi-generation/fork-vfs-example/home/sessions/--dsh-workspace--/preview-follow-up-builder';

const READABLE: Readable[] = [
  {
    file: 'v0/codeburn/bash-tool-turn.jsonl',
    generation: 0,
    snapshot: ['user: Use the bash tool to run exactly: echo TERMINAL_OK. Then reply with the single word DONE and stop.', 'assistant: DONE'],
    title: 'Use the bash tool to',
  },
  {
    file: 'v0/upstream-snapshots/compaction-recovery/session.jsonl',
    generation: 0,
    snapshot: [`checkpoint: ${CHECKPOINT_TEXT}`, 'assistant: COMPACTION RECOVERED'],
    title: 'Establish a durable compaction premise',
    scrubbed: 'SESSION_LOG_HEADER_INVALID',
  },
  {
    file: 'v0/upstream-snapshots/advanced-toolchain/session.jsonl',
    generation: 0,
    snapshot: [
      'user: Run this advanced flow exactly once: define a host-only dynamic Cordis Package named Snapshot Marker; run and inspect snap-1/pkg-1 through run_code; delegate once to a direct spawn child; run one workflow that delegates to another spawn child; remove snap-1; then reply with exactly ADVANCED_ACP_OK.',
      'assistant: ADVANCED_ACP_OK',
    ],
    title: 'Run this advanced flow exactly',
    scrubbed: 'SESSION_LOG_HEADER_INVALID',
  },
  {
    file: 'v0/upstream-snapshots/advanced-toolchain/session.1.jsonl',
    generation: 0,
    snapshot: ['user: Reply with exactly DIRECT_CHILD_OK and nothing else.', 'assistant: DIRECT_CHILD_OK'],
    title: 'Reply with exactly DIRECT_CHILD_OK and',
    scrubbed: 'SESSION_LOG_HEADER_INVALID',
  },
  {
    file: 'v0/upstream-snapshots/advanced-toolchain/session.2.jsonl',
    generation: 0,
    snapshot: ['user: Reply with exactly WORKFLOW_CHILD_OK and nothing else.', 'assistant: WORKFLOW_CHILD_OK'],
    title: 'Reply with exactly WORKFLOW_CHILD_OK and',
    scrubbed: 'SESSION_LOG_HEADER_INVALID',
  },
  { file: 'v1/codeburn/v1.jsonl', generation: 1, snapshot: ['assistant: Done'] },
  { file: 'v2/codeburn/v2.jsonl', generation: 2, snapshot: ['assistant: Done'] },
  {
    file: 'v2/fork-cli-snapshot/semantic-checkpoint/session.expected.jsonl',
    generation: 2,
    // The runtime-context message between the two prompts is injected, not direct user text.
    snapshot: [
      'user: Perform one side-effecting remote mutation.',
      'user: Continue safely from the interrupted operation.',
      'assistant: I will verify the external state before deciding whether to retry the side-effecting operation.',
    ],
    title: 'Perform one side-effecting remote mutati',
    scrubbed: 'SESSION_LOG_HEADER_INVALID',
  },
  { file: `${VFS}/session.v2.jsonl`, generation: 2, snapshot: FOLLOW_UP },
  { file: 'v3/codeburn/v3.jsonl', generation: 3, snapshot: ['assistant: Done'] },
  // The failed attempt and the retries are log-only.
  { file: 'v3/codeburn/v3-retry.jsonl', generation: 3, snapshot: ['assistant: Done'] },
  // The system head and its replacement are v3 surface nodes, but never a snapshot's.
  { file: 'v3/agent-sessions/v3_minimal_session.jsonl', generation: 3, snapshot: SYNTHETIC_V3 },
  { file: 'v3/agent-sessions/unknown_ignorable_event.jsonl', generation: 3, snapshot: SYNTHETIC_V3 },
  {
    file: 'v3/fork-cli-snapshot/subagent-inheritance/child.replay.v3.jsonl',
    generation: 3,
    snapshot: ['user: delegated task', 'assistant: CHILD_DENIED [sandbox: file access denied under read-only mode]'],
    scrubbed: 'SESSION_LOG_CORRUPT',
  },
  { file: `${VFS}/session.v3.jsonl`, generation: 3, snapshot: FOLLOW_UP },
  { file: 'v4/codeburn/v4.jsonl', generation: 4, snapshot: ['assistant: Done'] },
  { file: 'v4/codeburn/v4-retry.jsonl', generation: 4, snapshot: ['assistant: Done'] },
  // A v3 body under a v4 header read as v4: v4 keeps v3's source words readable (the formats note: accepting both costs nothing).
  { file: 'edge-cases/agent-sessions/future_v4_header.jsonl', generation: 4, snapshot: SYNTHETIC_V3 },
];

function sample(file: string): string {
  return readFileSync(join(SAMPLES, file), 'utf8');
}

function loadable(entry: Readable): string {
  return entry.scrubbed === undefined ? sample(entry.file) : unscrub(sample(entry.file));
}

describe('every readable sample, plain and as zstd frames', () => {
  it.each(READABLE)('$file (v$generation)', (entry) => {
    const plain = readSessionLog(write(`${entry.file.replaceAll('/', '_')}`, loadable(entry)), entry.generation);
    expect(plain.version).toBe(entry.generation);
    expect(plain.header.version).toBe(0);
    expect(plain.torn).toBeUndefined();
    expect(projectThroughRc8(plain)).toEqual(entry.snapshot);
    expect(titleOf(plain)).toBe(entry.title);
    const zstd = readSessionLog(write(`${entry.file.replaceAll('/', '_')}.zstd`, framePerRecord(loadable(entry))), entry.generation);
    expect(zstd).toEqual(plain);
  });

  it.each(READABLE.filter((entry) => entry.scrubbed !== undefined))('$file is refused as scrubbed ($scrubbed)', (entry) => {
    expect(() => readSessionLog(join(SAMPLES, entry.file), entry.generation)).toThrow(expect.objectContaining({ code: entry.scrubbed }));
  });

  it('keeps the file seqs: every event sits at its own seq, and what rc.8 cannot hold is an ignorable placeholder', () => {
    const read = readSessionLog(join(SAMPLES, 'v3/agent-sessions/unknown_ignorable_event.jsonl'), 3);
    expect(read.events.map((event) => event.seq)).toEqual([...Array(12).keys()]);
    expect(read.events.filter((event) => event.type === 'sessref/omitted').map((event) => [event.seq, event.data, event.ignorable])).toEqual([
      [2, { type: 'system/message' }, true],
      [4, { type: 'system/message' }, true],
      [5, { type: 'request/header' }, true],
      [6, { type: 'tool/ptc-dispatch-start' }, true],
      [7, { type: 'tool/ptc-dispatch' }, true],
      [11, { type: 'x-synth/unknown-ignorable' }, true],
    ]);
  });

  it('keeps the header of a subagent child, with the generation beside it', () => {
    const read = readSessionLog(join(SAMPLES, VFS, 'session.v3.jsonl'), 3);
    expect(read.version).toBe(3);
    expect(read.header).toEqual({
      version: 0,
      id: 'preview-follow-up-builder',
      createdAt: 1787472200000,
      cwd: '/dsh/workspace',
      parentSession: 'preview-showcase',
      origin: 'subagent',
      delegationDepth: 1,
      agentPreset: 'standard',
    });
  });
});

describe('the edge-case samples', () => {
  it('refuses a v5 log by name, whatever generation the file name claims', () => {
    const path = join(SAMPLES, 'edge-cases/agent-sessions/future_v5_header.jsonl');
    for (const generation of [5, 3]) {
      expect(() => readSessionLog(path, generation)).toThrow(
        expect.objectContaining({ code: 'SESSION_LOG_VERSION_UNKNOWN', message: expect.stringContaining('written by a dsh newer than sessref knows: v5') }),
      );
    }
  });

  it('refuses a header that disagrees with its file name', () => {
    expect(() => readSessionLog(join(SAMPLES, 'edge-cases/agent-sessions/future_v4_header.jsonl'), 3)).toThrow(
      expect.objectContaining({ code: 'SESSION_LOG_VERSION_MISMATCH', message: expect.stringContaining('identifies v3 (dsh 0.1.5 to 0.1.6), but its header identifies v4') }),
    );
  });

  it('reports a torn last line and returns only the committed events', () => {
    const read = readSessionLog(join(SAMPLES, 'edge-cases/agent-sessions/malformed_torn_tail.jsonl'), 3);
    expect(read.torn).toEqual({ unit: 'line', bytes: 85 });
    expect(read.events.map((event) => event.type).at(-1)).toBe('step/end');
    expect(projectThroughRc8(read)).toEqual(SYNTHETIC_V3);
  });

  it('reports a torn last frame of the same log as zstd', () => {
    const text = sample('edge-cases/agent-sessions/malformed_torn_tail.jsonl');
    const committed = text.slice(0, text.lastIndexOf('\n') + 1);
    const lastFrame = framePerRecord(sample('v3/agent-sessions/v3_minimal_session.jsonl').split('\n').at(-2)! + '\n');
    const torn = lastFrame.subarray(0, lastFrame.length - 5);
    const read = readSessionLog(write('torn.jsonl.zstd', Buffer.concat([framePerRecord(committed), torn])), 3);
    expect(read.torn).toEqual({ unit: 'frame', bytes: torn.length });
    expect(read.events).toHaveLength(10);
  });
});
