/**
 * `GET /api/events`: the inspector's change stream, so an open page follows
 * what other programs write (a `sessref send` from a terminal, dsh itself).
 * Server-sent events over a response the page reads with `fetch` (its token
 * travels in the header, as for every API call; an `EventSource` could only
 * put it in the address). One poller per server, running only while a page
 * listens: it asks the engine for the change stamps of the root's sessions
 * and the other agents' (the title index's log revisions and the
 * transcripts' revisions, kept current by file-system watches; nothing is
 * opened) and tells every listener which sessions appeared, changed or went.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Engine } from '../engine/engine.js';
import { HttpError } from './http.js';
import type { ChangeEvent } from './protocol.js';

export interface ChangeFeedOptions {
  /** How often the stamps are compared while a page listens (default 500 ms). */
  pollMs?: number;
  /** How often an idle stream gets a comment line, so proxies and the page see it alive (default 15 s). */
  heartbeatMs?: number;
  /** Streams open at once; one more is refused with 503 (default 16: one per tab, a few tabs). */
  maxListeners?: number;
}

const DEFAULT_POLL_MS = 500;
const DEFAULT_HEARTBEAT_MS = 15_000;
const DEFAULT_MAX_LISTENERS = 16;

export class ChangeFeed {
  /** Streams that follow changes: their headers and first event are sent. */
  private readonly listeners = new Set<ServerResponse>();
  /** Streams whose slot is taken while their first answer is prepared (they count toward the bound). */
  private readonly pending = new Set<ServerResponse>();
  private stamps: ReadonlyMap<string, string> | undefined;
  private revision = 0;
  private poller: ReturnType<typeof setInterval> | undefined;
  private heartbeat: ReturnType<typeof setInterval> | undefined;
  private polling = false;
  private closed = false;
  private readonly pollMs: number;
  private readonly heartbeatMs: number;
  private readonly maxListeners: number;

  constructor(
    private readonly engine: Engine,
    options: ChangeFeedOptions = {},
    private readonly log: (line: string) => void = () => {},
  ) {
    this.pollMs = options.pollMs ?? DEFAULT_POLL_MS;
    this.heartbeatMs = options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
    this.maxListeners = options.maxListeners ?? DEFAULT_MAX_LISTENERS;
  }

  /** Serve one stream until the page goes away or the server closes. */
  async stream(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (this.closed) throw new HttpError(503, 'SERVER_CLOSING', 'the inspector is shutting down');
    if (this.listeners.size + this.pending.size >= this.maxListeners) {
      throw new HttpError(503, 'TOO_MANY_STREAMS', `at most ${this.maxListeners} pages may follow changes at once; close another tab`);
    }
    // The slot is taken and the page's leaving watched before anything is awaited: a page that goes
    // while its first answer is prepared gives its slot back, and a burst cannot pass the bound.
    this.pending.add(res);
    let gone = false;
    const left = new Promise<void>((resolve) => {
      const done = () => {
        gone = true;
        this.pending.delete(res);
        if (this.listeners.delete(res) && this.listeners.size === 0) this.stop();
        resolve();
      };
      req.once('close', done);
      res.once('close', done);
    });
    try {
      // The first stamps are the baseline the page's own first load matches; later ones are changes.
      this.stamps ??= await this.engine.changeStamps();
    } finally {
      this.pending.delete(res);
    }
    if (gone) {
      // Nobody listens: the next page starts from fresh stamps, as after the last page leaves.
      if (this.listeners.size === 0) this.stamps = undefined;
      return;
    }
    if (this.closed) throw new HttpError(503, 'SERVER_CLOSING', 'the inspector is shutting down');
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-store', 'x-accel-buffering': 'no' });
    this.listeners.add(res);
    this.start();
    // A first event at once: the page knows it is following from here on.
    write(res, { revision: this.revision, changed: [] });
    await left;
  }

  /** End every stream and stop polling: the server is closing. */
  close(): void {
    this.closed = true;
    this.stop();
    for (const res of this.listeners) res.end();
    this.listeners.clear();
  }

  private start(): void {
    if (this.poller !== undefined) return;
    this.poller = setInterval(() => void this.poll(), this.pollMs);
    this.heartbeat = setInterval(() => {
      for (const res of this.listeners) res.write(': alive\n\n');
    }, this.heartbeatMs);
  }

  private stop(): void {
    clearInterval(this.poller);
    clearInterval(this.heartbeat);
    this.poller = undefined;
    this.heartbeat = undefined;
    // Nobody listens: the next page starts from fresh stamps.
    this.stamps = undefined;
  }

  private async poll(): Promise<void> {
    // One comparison at a time: a slow walk is not stacked up by the timer.
    if (this.polling) return;
    this.polling = true;
    try {
      const now = await this.engine.changeStamps();
      const before = this.stamps;
      // The listeners may all have gone (and the stamps been dropped) while this walk ran.
      if (before === undefined || this.listeners.size === 0) return;
      this.stamps = now;
      const changed = changedIds(before, now);
      if (changed.length === 0) return;
      this.revision += 1;
      for (const res of this.listeners) write(res, { revision: this.revision, changed });
    } catch (error) {
      // The next tick tries again; the page keeps what it shows. Only the failure's name: never a path or text.
      this.log(`GET /api/events poll failed (${error instanceof Error ? error.name : typeof error})`);
    } finally {
      this.polling = false;
    }
  }
}

/** The ids whose stamp appeared, changed or went between two walks, sorted. */
function changedIds(before: ReadonlyMap<string, string>, now: ReadonlyMap<string, string>): string[] {
  const changed = new Set<string>();
  for (const [id, stamp] of now) if (before.get(id) !== stamp) changed.add(id);
  for (const id of before.keys()) if (!now.has(id)) changed.add(id);
  return [...changed].sort();
}

function write(res: ServerResponse, event: ChangeEvent): void {
  res.write(`data: ${JSON.stringify(event)}\n\n`);
}
