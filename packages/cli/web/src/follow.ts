/**
 * Following changes: one change stream per tab (`GET /api/events`), read
 * with `fetch` so the token rides in its header. Each event names the
 * sessions that changed under the root; a dropped stream is opened again
 * after a growing pause, and a refused one (a token of an earlier launch) is
 * left closed.
 */
import type { ChangeEvent } from '../../src/server/protocol.js';
import { errorCode, openEvents } from './api.js';

const FIRST_RETRY_MS = 1_000;
const MAX_RETRY_MS = 30_000;
/** A token the server does not take will not be taken on a retry either. */
const FINAL = new Set(['UNAUTHORIZED', 'FORBIDDEN_TOKEN', 'FORBIDDEN_HOST', 'FORBIDDEN_ORIGIN']);

/**
 * Call `changed` with the ids of each change until the page goes away; after
 * a dropped stream is back, with `'all'`: what changed meanwhile is unknown.
 */
export function followChanges(changed: (ids: readonly string[] | 'all') => void): void {
  let retry = FIRST_RETRY_MS;
  let connected = false;
  const run = async (): Promise<void> => {
    try {
      for await (const event of events(await openEvents())) {
        retry = FIRST_RETRY_MS;
        if (event.changed.length > 0) changed(event.changed);
        // The first event of a stream says it is open; for a stream opened again, anything may have changed.
        else if (connected) changed('all');
        connected = true;
      }
    } catch (error) {
      if (FINAL.has(errorCode(error) ?? '')) return;
    }
    setTimeout(() => void run(), retry);
    retry = Math.min(retry * 2, MAX_RETRY_MS);
  };
  void run();
}

/** The `data:` events of a server-sent event stream, parsed; comment lines (heartbeats) skipped. */
async function* events(body: ReadableStream<Uint8Array>): AsyncGenerator<ChangeEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffered += decoder.decode(value, { stream: true });
    let end: number;
    while ((end = buffered.indexOf('\n\n')) >= 0) {
      const block = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      const data = block
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => line.slice('data: '.length))
        .join('\n');
      if (data !== '') yield JSON.parse(data) as ChangeEvent;
    }
  }
}
