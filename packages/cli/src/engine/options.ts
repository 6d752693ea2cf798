import type { HostOptions } from '@sessref/host';
import type { Config as ResolverConfig } from '@sessref/dsh/service';
import { defaultIndexFile, defaultSearchIndexFile } from '@sessref/dsh/title-catalog';

/** How an engine is opened: its root, the plugin's configuration, its index files and how long a write waits. */
export interface EngineOptions {
  root: string;
  resolver?: ResolverConfig;
  /** The title index file; defaults to the per-root file in the user's cache directory. */
  indexFile?: string;
  /** Keep the title index current from file-system events; for long-lived processes such as `serve`. */
  watchLogs?: boolean;
  /** sessref's content index file; defaults to the per-root file beside the title index. */
  searchIndexFile?: string;
  /** How long the content index waits, once, for another process's lock on its file; default 10 s. */
  searchIndexWaitMs?: number;
  /** How long `send` waits for another sessref process writing the same session; default {@link DEFAULT_LOCK_WAIT_MS}. */
  lockWaitMs?: number;
  /** Other agents whose sessions are read beside the root's (see `@sessref/sources`); none when absent. */
  sources?: readonly string[];
}

export const DEFAULT_LOCK_WAIT_MS = 10_000;

/** What `bootHost` gets for an engine: the options, with the index files defaulting to the root's files in the cache directory. */
export function engineHostOptions(options: EngineOptions): HostOptions {
  const { lockWaitMs: _lockWaitMs, sources, ...host } = options;
  return {
    ...host,
    // Nothing the CLI shows, serves or sends carries a credential: dsh's own sessions are redacted too.
    // A mention's excerpt suffix cites that part of the session in prepare, send and the inspector.
    resolver: { redactSecrets: true, excerpts: true, ...host.resolver, ...(sources === undefined ? {} : { sources: [...sources] }) },
    indexFile: options.indexFile ?? defaultIndexFile(options.root),
    searchIndexFile: options.searchIndexFile ?? defaultSearchIndexFile(options.root),
  };
}
