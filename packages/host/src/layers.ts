import { Context, type Plugin } from '@deepseek-ai/cordis';
import { AgentRegistry } from '@deepseek-ai/dsh-agent';
import { SessionStore } from '@deepseek-ai/dsh-session';
import { JsonlSessionPersistence, type Config as JsonlConfig } from '@deepseek-ai/dsh-session-persistence-jsonl';
import { SqliteSessionQueryEngine, type Config as SqliteConfig } from '@deepseek-ai/dsh-session-query-sqlite';
import SessionReferenceResolver, { type Config as ResolverConfig } from '@sessref/dsh';
import SessionTitleIndex, { type TitleIndexConfig } from '@sessref/dsh/title-index';
import { ListedJsonlPersistence } from './snapshot-listing.js';

/**
 * One named piece of a dsh host: the plugins that provide one role, mounted
 * in order. `bootHost` is one recipe of layers; the test support and the
 * benchmarks pick the layers they need from here instead of listing plugins
 * again, so a change to how a role is mounted is made once.
 */
export interface HostLayer {
  /** The role it fills (`persistence`, `query engine`, …): a host holds one layer per role. */
  readonly name: string;
  mount(ctx: Context): PromiseLike<unknown>;
}

/** A layer that mounts one plugin with its configuration. */
export function pluginLayer(name: string, plugin: Plugin, config?: unknown): HostLayer {
  return { name, mount: (ctx) => ctx.plugin(plugin, config) };
}

/**
 * Boot a root context from `layers`, in order. Two layers of one role are
 * refused before anything is mounted; a layer that fails disposes what the
 * layers before it mounted, and its error is thrown as it is.
 */
export async function bootLayers(layers: readonly HostLayer[]): Promise<Context> {
  const names = new Set<string>();
  for (const { name } of layers) {
    if (names.has(name)) throw new Error(`bootLayers: two "${name}" layers; a host holds one per role`);
    names.add(name);
  }
  const ctx = new Context();
  try {
    for (const layer of layers) await layer.mount(ctx);
  } catch (error) {
    await ctx.fiber.dispose();
    throw error;
  }
  return ctx;
}

/** dsh's live session store and agent registry (`ctx.sessions`, `ctx.agents`), which every host has. */
export const sessionServices: HostLayer = {
  name: 'session services',
  async mount(ctx) {
    await ctx.plugin(SessionStore);
    await ctx.plugin(AgentRegistry);
  },
};

/** The role both persistence layers fill: a host reads one root through one of them. */
const PERSISTENCE = 'persistence';

/**
 * sessref's strict persistence over a root (`ctx.sessionPersistence`): every
 * log generation, damaged logs refused per session, listings from kept
 * headers and a stat walk, or file-system events with `watch`
 * ({@link ListedJsonlPersistence}).
 */
export function checkedPersistence(root: string, options: Parameters<typeof ListedJsonlPersistence.with>[0] = {}): HostLayer {
  // A 1 ms coalescing window: writers flush explicitly anyway.
  return pluginLayer(PERSISTENCE, ListedJsonlPersistence.with(options), { root, writeBatchMaxDelayMs: 1 });
}

/** dsh's own JSONL backend as dsh mounts it, for the suites and benchmarks that measure or oracle against dsh itself. */
export function dshPersistence(config: JsonlConfig): HostLayer {
  return pluginLayer(PERSISTENCE, JsonlSessionPersistence, config);
}

/**
 * dsh's `SqliteSessionQueryEngine` as `ctx.sessionQuery`, by default as dsh
 * web mounts it: an in-memory full-text index that never opens, so every
 * read is the host's exact read (content search is sessref's own index).
 */
export function queryEngine(config: SqliteConfig = { path: ':memory:', openAt: 'never' }): HostLayer {
  return pluginLayer('query engine', SqliteSessionQueryEngine, config);
}

/** The title index of a root (`ctx.sessionReferenceCatalog`, see `@sessref/dsh/title-index`). */
export function titleIndex(config: TitleIndexConfig): HostLayer {
  return pluginLayer('title index', SessionTitleIndex, config);
}

/**
 * The session-reference plugin (`ctx.sessionReferenceResolver`): sessref's
 * `@sessref/dsh` unless another implementation is named (the benchmarks
 * mount the official one through the same layer).
 */
export function referencePlugin(config: ResolverConfig = {}, plugin: Plugin = SessionReferenceResolver): HostLayer {
  return pluginLayer('reference plugin', plugin, config);
}

/**
 * A long-lived host builds (or catches up) the content index in the
 * background, so that the first keystroke does not wait for a whole root to
 * be indexed. Stopped when the host stops. Not awaited: a refresh that fails
 * or is stopped only leaves the next search to do the work.
 */
export const contentIndexRefresh: HostLayer = pluginLayer('content index refresh', {
  name: 'sessref-content-index',
  inject: ['sessionReferenceResolver'],
  apply(ctx: Context) {
    const resolver = ctx.get('sessionReferenceResolver');
    if (!resolver?.service.contentSearch) return;
    const stop = new AbortController();
    ctx.effect(() => () => stop.abort(new Error('the host stopped')), 'stop refreshing the content index');
    resolver.service.refreshContentIndex(stop.signal).catch(() => undefined);
  },
});
