/** Helpers the agents' reader tests share. */
import type * as NodeFs from 'node:fs';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, expect, it, vi } from 'vitest';
import { projectConversation } from '@sessref/core';
import type { SourceReadError, Transcript, TranscriptSource } from '@sessref/sources';
import type * as Sources from '../src/index.js';

/** A carried item as a test states it: who (a compaction checkpoint apart), and the text a snapshot carries. */
export type Item = readonly ['user' | 'assistant' | 'checkpoint', string];

/** What a snapshot of `transcript` carries, as {@link Item}s. */
export function carried(transcript: Transcript): Item[] {
  return projectConversation(transcript.messages).map((item): Item => [item.checkpoint ? 'checkpoint' : item.role, item.text]);
}

/** Everything a listing answers: headers, labels and refusals. */
export async function listing(source: TranscriptSource): Promise<unknown> {
  const headers = await source.listSessions();
  const titles = await source.readTitles(headers.map((header) => header.id));
  return {
    headers,
    titles: titles.map((result) => (result.status === 'fulfilled' ? result.title : 'rejected')),
    problems: source.problems().map((problem) => [problem.sessionId, problem.error.code, problem.error.message]),
  };
}

/** A source's problems as a test states them: the session, the file, the code and the message. */
export function problemsOf(source: { problems(): { sessionId: string; file: string; error: SourceReadError }[] }): [string, string, string, string][] {
  return source.problems().map((problem) => [problem.sessionId, problem.file, problem.error.code, problem.error.message]);
}

/**
 * Run `work` over a fresh load of the sources for which the folder `closed`
 * cannot be searched: as root no mode does that, so `node:fs` answers its
 * access check with EACCES, as it does for a user without search permission.
 */
export async function withUnsearchableFolder<T>(closed: string, work: (sources: typeof Sources) => Promise<T>): Promise<T> {
  vi.resetModules();
  vi.doMock('node:fs', async (importOriginal) => {
    const fs = await importOriginal<typeof NodeFs>();
    return {
      ...fs,
      accessSync: (path: string, mode?: number) => {
        if (path === closed) throw Object.assign(new Error(`EACCES: permission denied, access '${path}'`), { code: 'EACCES' });
        fs.accessSync(path, mode);
      },
    };
  });
  try {
    return await work(await import('../src/index.js'));
  } finally {
    vi.doUnmock('node:fs');
    vi.resetModules();
  }
}

/** One agent's shared samples (`../shared/cross-harness-samples/<agent>/`), read in place and never copied. */
export function samplesOf(agent: string): string {
  return fileURLToPath(new URL(`../../../../shared/cross-harness-samples/${agent}/`, import.meta.url));
}

/** A scratch folder for one test file, removed after its tests. */
export function scratchFolder(prefix: string): string {
  const folder = mkdtempSync(join(tmpdir(), prefix));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));
  return folder;
}

/** A test per sample file under `samples` (each stating what is read from it), and one that no file is left without. */
export function itReadsEverySample(samples: string, expectations: Readonly<Record<string, () => void | Promise<void>>>): void {
  it('has an expectation for every sample file', () => {
    const files = readdirSync(samples, { recursive: true, withFileTypes: true }).filter((found) => found.isFile());
    expect(files.map((found) => relative(samples, join(found.parentPath, found.name))).sort()).toEqual(Object.keys(expectations).sort());
  });
  for (const [name, expectation] of Object.entries(expectations)) it(`reads ${name}`, expectation);
}

/** A 32 MiB message is folded once, whole, in bounded time: `foldWith` folds a transcript whose first carried text is `huge`. */
export function itFoldsAHugeMessage(foldWith: (huge: string) => Transcript): void {
  it('a huge line is read once, in bounded time', () => {
    const huge = 'x'.repeat(32 * 1024 * 1024);
    const started = performance.now();
    expect(carried(foldWith(huge))[0]?.[1]).toHaveLength(huge.length);
    expect(performance.now() - started).toBeLessThan(20_000);
  });
}

/** Every text `transcript` carries is text `source` holds (JSON-escaped, as a record holds it): a fold never makes text up. */
export function expectCarriesOnlyTextOf(source: string, transcript: Transcript): void {
  for (const [, text] of carried(transcript)) expect(source).toContain(JSON.stringify(text).slice(1, -1));
}

/** 300,000 messages, alternating user and assistant (`message(index)` gives the index-th), fold in bounded time: `foldAll` folds them as one session. */
export function itFoldsManyMessagesInLinearTime<Message>(message: (index: number) => Message, foldAll: (messages: Message[]) => Transcript): void {
  it('300,000 messages fold in linear time', () => {
    const messages = Array.from({ length: 300_000 }, (_, index) => message(index));
    const started = performance.now();
    expect(carried(foldAll(messages))).toHaveLength(300_000);
    expect(performance.now() - started).toBeLessThan(20_000);
  });
}

/** Short generated texts, never blank: what property tests put in messages. */
export const words = fc.string({ minLength: 1, maxLength: 6 }).map((value) => `w${value}`.trim());
