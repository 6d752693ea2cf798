/** Helpers the agents' reader tests share. */
import { projectConversation } from '@sessref/core';
import type { Transcript, TranscriptSource } from '@sessref/sources';

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
