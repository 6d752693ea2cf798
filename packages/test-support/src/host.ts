/**
 * The test host over the REAL DeepSeek Harness host packages: a cordis root
 * context with the real `SessionStore` and `AgentRegistry`, a concrete
 * `SessionQueryEngine` (full-text search disabled, every read real) or dsh's
 * `SqliteSessionQueryEngine`, optional JSONL persistence, and the real
 * invariant companions. Only the agent loop (`dsh-agent-loop`, not installed)
 * is replaced, by `@sessref/host`'s loop-less `StepAgent` (see agent.ts).
 */
import type { Context } from '@deepseek-ai/cordis';
import InvariantRegistry from '@deepseek-ai/dsh-invariants';
import * as AgentInvariant from '@deepseek-ai/dsh-agent/invariant';
import * as CompactionInvariant from '@deepseek-ai/dsh-compaction/invariant';
import * as ScopeInvariant from '@deepseek-ai/dsh-scope/invariant';
import * as SessionInvariant from '@deepseek-ai/dsh-session/invariant';
import * as SessionTitleInvariant from '@deepseek-ai/dsh-session-title/invariant';
import type { SessionStore, Session } from '@deepseek-ai/dsh-session';
import { SessionQueryEngine, SessionQueryError } from '@deepseek-ai/dsh-session-query';
import type {
  Config as SessionQueryConfig,
  SessionEventSearchPage,
  SessionSearchHit,
  SessionSearchPage,
} from '@deepseek-ai/dsh-session-query';
import type { JsonlCompression } from '@deepseek-ai/dsh-session-persistence-jsonl';
import type { Config as SqliteSessionQueryConfig } from '@deepseek-ai/dsh-session-query-sqlite';
import type { SessionPersistence } from '@deepseek-ai/dsh-session-persistence';
import {
  bootLayers,
  createSession,
  dshPersistence,
  pluginLayer,
  queryEngine,
  sessionServices,
  type CreateSessionOptions,
  type HostLayer,
} from '@sessref/host';

/** Options for {@link createHost}. */
export interface HostOptions {
  /** Directory for JSONL persistence; omitted keeps every session in memory only. */
  root?: string;
  /** JSONL physical encoding (the backend default is `'zstd'`). A root holds one encoding only. */
  compression?: JsonlCompression;
  /** JSONL live-event coalescing window in ms (backend default 200); `flush()` bypasses it. */
  writeBatchMaxDelayMs?: number;
  /** Mount `ctx.invariants` and the real invariant companions (default `true`). */
  invariants?: boolean;
  /** Configuration forwarded to the session-query engine. */
  sessionQuery?: SessionQueryConfig;
  /**
   * Mount dsh's own full-text backend, `SqliteSessionQueryEngine` with this
   * configuration, as `ctx.sessionQuery` instead of {@link HarnessSessionQuery}
   * (whose search is disabled). `sessionQuery` is merged into it.
   */
  search?: SqliteSessionQueryConfig;
}

/** A booted host: the root context plus typed shortcuts to its services. */
export interface Host {
  /** Root cordis context; plug the plugin under test in here. */
  readonly ctx: Context;
  /** JSONL root, when persistence is mounted. */
  readonly root: string | undefined;
  /** `ctx.sessions`, the real in-memory `SessionStore`. */
  readonly sessions: SessionStore;
  /** `ctx.sessionQuery`, the concrete {@link HarnessSessionQuery}. */
  readonly sessionQuery: SessionQueryEngine;
  /** `ctx.sessionPersistence`, when persistence is mounted. */
  readonly persistence: SessionPersistence | undefined;
  /** Await the `session/flush` durability checkpoint for one live session. */
  flush(session: Session): Promise<boolean>;
  /** Dispose the root fiber: unloads every plugin and drains persistence. Idempotent. */
  dispose(): Promise<void>;
}

/**
 * Concrete `ctx.sessionQuery`. Exact reads, filters, titles and traces are the
 * inherited real implementation; only the two abstract full-text methods are
 * stubbed, with the query package's own `SESSION_QUERY_SEARCH_DISABLED` code.
 */
class HarnessSessionQuery extends SessionQueryEngine {
  override async searchSessions(): Promise<SessionSearchPage<SessionSearchHit>> {
    throw new SessionQueryError('search disabled', 'SESSION_QUERY_SEARCH_DISABLED');
  }

  override async searchEvents(): Promise<SessionEventSearchPage> {
    throw new SessionQueryError('search disabled', 'SESSION_QUERY_SEARCH_DISABLED');
  }
}

/** `ctx.invariants` and the real invariant companions (each injects `invariants`), mounted by default. */
const invariants: HostLayer = {
  name: 'invariants',
  async mount(ctx) {
    await ctx.plugin(InvariantRegistry, { enabled: true });
    for (const companion of [SessionInvariant, SessionTitleInvariant, CompactionInvariant, AgentInvariant, ScopeInvariant]) await ctx.plugin(companion);
  },
};

/**
 * Boot a real host.
 *
 * Layers, in order (`@sessref/host`'s, plus the invariants): `InvariantRegistry`
 * + companions, `SessionStore` (`sessions`) and `AgentRegistry` (`agents`),
 * optionally dsh's own `JsonlSessionPersistence` (`sessionPersistence`,
 * injects `sessions`), then {@link HarnessSessionQuery} or dsh's
 * `SqliteSessionQueryEngine` (`sessionQuery`, injects `sessions`; it follows
 * `sessionPersistence` dynamically, so a persisted-only session is readable as
 * soon as it exists).
 * @param options - persistence root and service switches.
 * @returns the booted host.
 */
export async function createHost(options: HostOptions = {}): Promise<Host> {
  const ctx = await bootLayers([
    ...(options.invariants === false ? [] : [invariants]),
    sessionServices,
    ...(options.root === undefined
      ? []
      : [
          dshPersistence({
            root: options.root,
            ...(options.compression === undefined ? {} : { compression: options.compression }),
            ...(options.writeBatchMaxDelayMs === undefined ? {} : { writeBatchMaxDelayMs: options.writeBatchMaxDelayMs }),
          }),
        ]),
    options.search === undefined
      ? pluginLayer('query engine', HarnessSessionQuery, options.sessionQuery ?? {})
      : queryEngine({ ...options.sessionQuery, ...options.search }),
  ]);
  let disposed: Promise<void> | undefined;
  const dispose = (): Promise<void> => (disposed ??= ctx.fiber.dispose());
  return {
    ctx,
    root: options.root,
    get sessions() {
      return ctx.sessions;
    },
    get sessionQuery() {
      return ctx.sessionQuery;
    },
    get persistence() {
      return ctx.get('sessionPersistence');
    },
    flush: (session) => ctx.sessions.flush(session),
    dispose,
  };
}

/** A live session owned by its own plugin fiber, and the disposer that removes it from the store. */
export interface OwnedSession {
  session: Session;
  /** Dispose the owning fiber: the session leaves the live store (a persisted copy stays on disk). */
  dispose(): Promise<void>;
}

/**
 * Like {@link createSession}, but the session belongs to a child fiber instead
 * of the root, so one session can be deleted from the live store mid-test.
 */
export async function createOwnedSession(host: Host, options: CreateSessionOptions = {}): Promise<OwnedSession> {
  let session: Session | undefined;
  const fiber = await host.ctx.plugin({
    name: 'owned-session',
    inject: ['sessions'],
    apply: (ctx: Context) => {
      session = createSession({ ...host, sessions: ctx.sessions }, options);
    },
  });
  if (session === undefined) throw new Error('createOwnedSession: the session was not created');
  return { session, dispose: async () => void (await fiber.dispose()) };
}
