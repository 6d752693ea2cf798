/**
 * The Node platform every sessref package stands on: the revision record of
 * a file, bounded reads that never wait on a special file, bounded walks of
 * a folder, the listings of a root's directories a process shares, atomic
 * replacement of a derived file, sessref's cache directory and the name of
 * each file in it, the one Zstandard frame walk, a monotonic clock, and
 * `node:sqlite`, `node:crypto` and `node:zlib` loaded when first used. Node
 * only; no agent and no dsh.
 * @module @sessref/platform
 */
export { directoryProblem, replaceFileAtomically } from './atomic-file.js';
export { readDerivedBytes, readDerivedFile, writeDerivedFile, type DerivedFileKind, type DerivedRead } from './derived-file.js';
export { fnv1a64, sessrefCacheDirectory, sessrefCacheFile, sessrefRemotesDirectory } from './cache-directory.js';
export { childPath } from './child-path.js';
export { monotonicMs } from './clock.js';
export { deepFreeze } from './deep-freeze.js';
export { type DirectoryBudget, type DirectoryEntry, filesInFolders, listDirectory, listSessionFolder, sessionFolders, type WalkTrail } from './directory.js';
export { DirectoryListings, PROCESS_LISTINGS } from './directory-listings.js';
export { nodeCrypto, nodeZlib } from './lazy-builtins.js';
export { loadNodeSqlite, type NodeSqliteModule, quietSqliteWarning } from './node-sqlite.js';
export { deliverPendingEvents } from './pending-events.js';
export { describeFileType, FileTooLargeError, NotRegularFileError, openRegularFile, readFully, readRegularFile } from './regular-file.js';
export { type FileRevision, fileToken, readRevision, revisionToken, sameFile, sameRevision } from './revision.js';
export { type FrameScan, type FrameSpan, scanFrame, ZSTD_MAGIC } from './zstd-frame.js';
