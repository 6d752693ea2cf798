import type * as NodeSqlite from 'node:sqlite';

/** The `node:sqlite` module. */
export type NodeSqliteModule = typeof NodeSqlite;

/**
 * The one stated minimum: Node 22.5 has `node:sqlite` only behind
 * `--experimental-sqlite`; 22.13 is the first 22 release that provides it
 * without a flag.
 */
const MINIMUM_NODE = '22.13';

let loading: Promise<NodeSqliteModule> | undefined;

/**
 * `node:sqlite`, loaded at the first call, so that nothing else pays for it
 * and Node 20 (which lacks it) can still load this package. On a Node
 * without it the promise rejects with `refuse(requirement, cause)`, where
 * `requirement` says what is missing and which Node has it, and the next
 * call tries again.
 */
export function loadNodeSqlite(refuse: (requirement: string, cause: unknown) => Error): Promise<NodeSqliteModule> {
  quietSqliteWarning();
  loading ??= import('node:sqlite').catch((cause: unknown) => {
    loading = undefined;
    throw cause;
  });
  return loading.catch((cause: unknown) => {
    throw refuse(`node:sqlite, which this Node (${process.version}) does not provide without a flag: use Node ${MINIMUM_NODE} or later`, cause);
  });
}

let quieted = false;

/**
 * Node 22 flags `node:sqlite` as experimental with a one-time warning on
 * stderr when it is first loaded (by sessref's content index, or dsh's
 * query engine). That notice concerns sessref's internals, not the user,
 * and would break `--json` consumers that read stderr; every other warning
 * still prints.
 */
export function quietSqliteWarning(): void {
  if (quieted) return;
  quieted = true;
  const emit = process.emitWarning.bind(process) as (...args: unknown[]) => void;
  process.emitWarning = (warning: string | Error, ...rest: unknown[]) => {
    const text = typeof warning === 'string' ? warning : warning.message;
    if (text.startsWith('SQLite is an experimental feature')) return;
    emit(warning, ...rest);
  };
}
