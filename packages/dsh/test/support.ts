/**
 * Shared helpers of the dsh suites: host and temp-dir lifetimes, a Claude
 * Code home, message text, the snapshot JSON between the tags, and
 * coded-error assertions.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, vi } from 'vitest';
import type { Message, UserMessage } from '@deepseek-ai/dsh-llm';
import { SessionReferenceError, type SessionReferenceErrorCode } from '@sessref/core';
import SessionReferenceResolver, { type Config } from '@sessref/dsh';
import { createHost, createSession, makeAgent } from '@sessref/test-support';
import type { Host, HostOptions, StepAgent } from '@sessref/test-support';

/** Hosts and temporary JSONL roots that are disposed after each test. */
export interface Scratch {
  host(options?: HostOptions): Promise<Host>;
  tempRoot(): Promise<string>;
  /** Dispose everything made so far (also runs after each test). */
  cleanup(): Promise<void>;
}

/** Register an `afterEach` that disposes every host and removes every root made through the returned helpers. */
export function useScratch(): Scratch {
  const hosts: Host[] = [];
  const roots: string[] = [];
  const scratch: Scratch = {
    async host(options) {
      const created = await createHost(options);
      hosts.push(created);
      return created;
    },
    async tempRoot() {
      const root = await mkdtemp(join(tmpdir(), 'sessref-dsh-'));
      roots.push(root);
      return root;
    },
    async cleanup() {
      for (const host of hosts.splice(0)) await host.dispose();
      for (const root of roots.splice(0)) await rm(root, { recursive: true, force: true });
    },
  };
  afterEach(() => scratch.cleanup());
  return scratch;
}

/**
 * Point `HOME` (until `vi.unstubAllEnvs()`) at `home` holding one Claude Code
 * transcript of `records`, in `/proj`, at its default place
 * (`.claude/projects/-proj/<id>.jsonl`), with every other agent's home
 * override cleared so only that home exists.
 */
export function useClaudeTranscript(home: string, sessionId: string, records: readonly object[]): void {
  const project = join(home, '.claude', 'projects', '-proj');
  mkdirSync(project, { recursive: true });
  writeFileSync(join(project, `${sessionId}.jsonl`), records.map((record) => `${JSON.stringify(record)}\n`).join(''));
  vi.stubEnv('HOME', home);
  for (const name of ['CLAUDE_CONFIG_DIR', 'CODEX_HOME', 'GEMINI_CLI_HOME', 'XDG_DATA_HOME', 'OPENCODE_DB']) vi.stubEnv(name, '');
}

/** Load our plugin into `host` and return its service. */
export async function loadOurs(host: Host, config: Config = {}): Promise<SessionReferenceResolver> {
  await host.ctx.plugin(SessionReferenceResolver, config);
  return host.ctx.sessionReferenceResolver;
}

/** A host with our plugin loaded, and the live agent a test searches for (`target`, cwd `/proj`). */
export interface World {
  host: Host;
  resolver: SessionReferenceResolver;
  agent: StepAgent;
}

/** Load our plugin into `host` and start the target agent of a {@link World}. */
export async function worldOf(host: Host, config: Config = {}): Promise<World> {
  const resolver = await loadOurs(host, config);
  const agent = makeAgent(host, createSession(host, { id: 'target', cwd: '/proj', createdAt: 100 }));
  return { host, resolver, agent };
}

/** A message's text blocks, joined with "\n". */
export function textOf(message: Pick<Message, 'content'>): string {
  return message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n');
}

const OPEN_TAG_LINE = '<referenced-sessions>';
const CLOSE_TAG_LINE = '</referenced-sessions>';

/**
 * The JSON text between the `<referenced-sessions>` and
 * `</referenced-sessions>` lines of a context message, which must hold exactly
 * one line of each.
 */
export function snapshotJson(context: UserMessage): string {
  const lines = textOf(context).split('\n');
  const open = lines.indexOf(OPEN_TAG_LINE);
  const close = lines.indexOf(CLOSE_TAG_LINE);
  expect(lines.filter((line) => line === OPEN_TAG_LINE), 'one opening tag line').toHaveLength(1);
  expect(lines.filter((line) => line === CLOSE_TAG_LINE), 'one closing tag line').toHaveLength(1);
  expect(open).toBeLessThan(close);
  return lines.slice(open + 1, close).join('\n');
}

/** The stable code of a `SessionReferenceError` from either implementation, else a description of what was thrown. */
export function errorCodeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (error instanceof Error && error.name === 'SessionReferenceError' && typeof code === 'string') return code;
  return `not a SessionReferenceError: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`;
}

/** Await `work` and return our `SessionReferenceError`, failing unless it carries `code`. */
export async function expectReferenceError(work: PromiseLike<unknown>, code: SessionReferenceErrorCode): Promise<SessionReferenceError> {
  const error = await Promise.resolve(work).then(
    () => expect.fail(`expected a rejection with ${code}`),
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(SessionReferenceError);
  expect((error as SessionReferenceError).code).toBe(code);
  return error as SessionReferenceError;
}

/** A promise that never settles, like a storage call that hangs and ignores its signal. */
export function never<T>(): Promise<T> {
  return new Promise<T>(() => {});
}

/** A method patched by {@link stall}. */
export interface Stalled {
  /** Settles once the method has been called. */
  readonly called: Promise<void>;
  restore(): void;
}

/**
 * Patch `object[method]` on the instance so every call hangs forever,
 * ignoring its signal, until `restore()`.
 */
export function stall<T extends object>(object: T, method: keyof T & string): Stalled {
  let markCalled!: () => void;
  const called = new Promise<void>((resolve) => (markCalled = resolve));
  const spy = vi.spyOn(object as unknown as Record<string, () => Promise<never>>, method).mockImplementation(() => {
    markCalled();
    return never();
  });
  return { called, restore: () => spy.mockRestore() };
}
