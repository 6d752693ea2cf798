/**
 * @sessref/host/reading: sessref's own reads of a dsh root, with none of
 * dsh's runtime loaded until a log has to be read: the strict log-by-log
 * listing and reads ({@link RootLogs}), the listing from kept headers
 * ({@link KeptHeaders}), and the root's shape checks. What a process that
 * only reads a root (a `sessref list`) lists it with; the dsh persistence
 * of `@sessref/host` answers through the same classes.
 * @module @sessref/host/reading
 */
export { RootLogs } from './root-logs.js';
export { SessionLogError } from './session-log-error.js';
export type { KeptRefusal } from './refusal-memory.js';
export type { ListedLog, StoredLog } from './log-reads.js';
export { KeptHeaders } from './kept-headers.js';
export { RootFormatError, assertSupportedRoot, type RootFormatCode } from './root-shape.js';
