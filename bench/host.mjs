/**
 * Benchmark host: boots the REAL DeepSeek Harness host from @sessref/host's
 * named layers, as the test support does (session services, dsh's own JSONL
 * persistence when there is a root, and dsh's own
 * `SqliteSessionQueryEngine` as dsh web mounts it by default: an in-memory
 * index that never opens, so full-text search is off and every exact read is
 * the host's) and mounts exactly one session-reference plugin: ours
 * (@sessref/dsh, built) or the official one (black box). The content-search
 * suite runs sessref as `sessref serve` does instead ({@link ServeHost}: the
 * host `bootHost` from @sessref/host composes, searched through the plugin's service).
 *
 * Over a JSONL root, ours is mounted as the CLI deploys it
 * (packages/host/src/host.ts): with the title index layer
 * (`SessionTitleIndex` from `@sessref/dsh/title-index`, registered as `ctx.sessionReferenceCatalog`) between
 * the query engine and the resolver, persisting to one index file per root
 * under the bench cache dir. The official plugin has no such index.
 *
 * Invariant companions are not mounted: they validate writes, which
 * @sessref/host's session writer already keeps valid, and they are not part of the read path
 * being measured.
 */
import OfficialResolver from '@deepseek-ai/dsh-session-reference';
import SessrefResolver from '@sessref/dsh';
import {
  appendExchange,
  bootHost as bootServeHost,
  bootLayers,
  dshPersistence,
  queryEngine,
  referencePlugin,
  sessionServices,
  titleIndex,
} from '@sessref/host';
import { titleIndexFile } from './lib/cache.mjs';

/** The two implementations under comparison, by the name used in reports. */
export const IMPLEMENTATIONS = {
  sessref: SessrefResolver,
  official: OfficialResolver,
};

/**
 * Boot a host with one resolver plugin.
 * @param {{ impl: 'sessref' | 'official', root?: string, resolver?: object, titleIndex?: boolean, indexFile?: string, queryIndex?: string }} options
 *   `root` mounts JSONL persistence (zstd, the backend default); omitted keeps
 *   every session in memory. With a root, `sessref` also gets the title index
 *   (unless `titleIndex: false`), persisted to `indexFile` (default: the
 *   root's file under the bench cache dir).
 */
export async function bootHost({ impl, root, resolver = {}, titleIndex: withTitleIndex = true, indexFile = root && titleIndexFile(root), queryIndex }) {
  const plugin = IMPLEMENTATIONS[impl];
  if (plugin === undefined) throw new Error(`unknown implementation "${impl}"`);
  const ctx = await bootLayers([
    sessionServices,
    // A 1 ms coalescing window: writers flush explicitly anyway.
    ...(root === undefined ? [] : [dshPersistence({ root, writeBatchMaxDelayMs: 1 })]),
    // dsh web's default: full-text search off. `queryIndex` turns dsh's own FTS5 backend on over that file (the search baseline).
    queryEngine(queryIndex === undefined ? undefined : { path: queryIndex, openAt: 'first-search' }),
    ...(impl === 'sessref' && root !== undefined && withTitleIndex ? [titleIndex({ root, indexFile, watch: true })] : []),
    referencePlugin(resolver, plugin),
  ]);
  return {
    ctx,
    resolver: ctx.get('sessionReferenceResolver'),
    sessions: ctx.sessions,
    sessionQuery: ctx.sessionQuery,
    catalog: ctx.get('sessionReferenceCatalog'),
    dispose: () => ctx.fiber.dispose(),
  };
}

/**
 * sessref as `sessref serve` runs it: `bootHost` from @sessref/host (strict
 * JSONL persistence, dsh's SqliteSessionQueryEngine as ctx.sessionQuery, the
 * title index, @sessref/dsh with contentSearch on), and content search through
 * the plugin's service, `ctx.sessionReferenceResolver.searchContent()`, as the
 * CLI's Engine calls it for a search without a target.
 */
export class ServeHost {
  /** @param {{ root: string, indexFile: string, searchIndexFile: string, watchLogs?: boolean }} options */
  static async open(options) {
    return new ServeHost(await bootServeHost(options));
  }

  constructor(ctx) {
    this.ctx = ctx;
  }

  /** @param {string} query @param {{ limit?: number, signal?: AbortSignal }} [options] */
  search(query, { limit, signal } = {}) {
    return this.ctx.sessionReferenceResolver.searchContent(undefined, query, limit, signal);
  }

  close() {
    return this.ctx.fiber.dispose();
  }
}

/** The minimal agent prepare()/listCandidates() need: an id and its session. */
export function agentFor(session) {
  return { id: session.id, session };
}

/**
 * How the corpora's assistant messages are logged: a `bench` model, without
 * stream chunks. Cached corpora were written so; changing it changes their logs.
 */
const BENCH_MODEL = { provider: 'bench', model: 'bench-model', stream: false };

/**
 * Fill a session with `messages` alternating user/assistant messages.
 * @param {(index: number) => string} textFor - text of message `index`.
 * @returns total UTF-16 length of the message text (ASCII here, so bytes).
 */
export function writeConversation(session, messages, textFor) {
  let textLength = 0;
  for (let index = 0; index < messages; index += 2) {
    const user = textFor(index);
    const assistant = textFor(index + 1);
    appendExchange(session, { user, assistant }, BENCH_MODEL);
    textLength += user.length + assistant.length;
  }
  return textLength;
}
