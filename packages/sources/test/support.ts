/** Helpers the agents' reader tests share. */
import type * as NodeFs from 'node:fs';
import { vi } from 'vitest';
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
