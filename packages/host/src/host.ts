import type { Context } from '@deepseek-ai/cordis';
import { SessionReferenceResolver, type Config as ResolverConfig, type ReferenceService } from '@sessref/dsh';
import { quietSqliteWarning } from '@sessref/platform';
import type { KeptHeaders } from '@sessref/dsh/reading';
import { bootLayers, checkedPersistence, contentIndexRefresh, queryEngine, referencePlugin, sessionServices, titleIndex } from './layers.js';

export interface HostOptions {
  /** JSONL session root (zstd, as dsh writes it). */
  root: string;
  resolver?: ResolverConfig;
  /** Where the title index persists; `undefined` keeps it in memory. */
  indexFile?: string;
  /**
   * Where sessref's content index persists (see `@sessref/search-index`, "Search
   * index"); `undefined` keeps it in memory. Processes share one file.
   */
  searchIndexFile?: string;
  /** How long the content index waits, once, for another process's lock on its file; default 10 s. */
  searchIndexWaitMs?: number;
  /**
   * A long-lived process (`sessref serve`): follow file-system events to keep
   * the title index current, and build the content index in the background
   * (see `contentIndexRefresh` in layers.ts).
   */
  watchLogs?: boolean;
}

/**
 * Boot the real dsh host over a session root, from its layers (see
 * layers.ts): session services; sessref's strict persistence (refusing
 * damaged or partial logs, see `CheckedJsonlPersistence`; listing from kept
 * headers and a stat walk, or file-system events with `watchLogs`, see
 * `ListedJsonlPersistence`); dsh's own `SqliteSessionQueryEngine` as
 * `ctx.sessionQuery` for exact reads only (its full-text index never opens:
 * content search is sessref's own index); the title index; the sessref plugin
 * with content search on; and, with `watchLogs`, the content index built in
 * the background.
 */
export async function bootHost(options: HostOptions): Promise<Context> {
  quietSqliteWarning();
  const watch = options.watchLogs ?? false;
  // The headers the listing keeps persist beside the content index, one file per root.
  const headersFile = options.searchIndexFile === undefined ? undefined : `${options.searchIndexFile}.headers.json`;
  return bootLayers([
    sessionServices,
    checkedPersistence(options.root, { watch, headersFile }),
    queryEngine(),
    titleIndex({
      root: options.root,
      ...(options.indexFile === undefined ? { persist: false } : { indexFile: options.indexFile }),
      ...(options.searchIndexFile === undefined ? {} : { searchIndexFile: options.searchIndexFile }),
      ...(options.searchIndexWaitMs === undefined ? {} : { searchIndexWaitMs: options.searchIndexWaitMs }),
      watch,
    }),
    referencePlugin({ contentSearch: true, ...options.resolver }),
    ...(watch ? [contentIndexRefresh] : []),
  ]);
}

/**
 * A dsh host for the steps and writes of a process that reads a root with
 * sessref's own reads (`@sessref/dsh/reading`): session services,
 * sessref's strict persistence answering its listings from `kept` (the
 * listing those reads already keep, so nothing is walked or read twice),
 * dsh's query engine for exact reads, and the sessref plugin, whose
 * `agent/pre-step` expands mentions with `service`, the one the process
 * lists, titles and routes sessions with (see `SessionReferenceResolver.over`).
 * No title index: the process keeps its own.
 */
export async function bootStepHost(kept: KeptHeaders, service: ReferenceService, resolver: ResolverConfig = {}): Promise<Context> {
  quietSqliteWarning();
  return bootLayers([sessionServices, checkedPersistence(kept.logs.root, { shared: kept }), queryEngine(), referencePlugin(resolver, SessionReferenceResolver.over(service))]);
}
