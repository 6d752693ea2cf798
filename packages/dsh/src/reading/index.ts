/**
 * @sessref/dsh/reading: sessref's own reads of a dsh root, with none of
 * dsh's runtime loaded until a log has to be read: the strict log-by-log
 * listing and reads ({@link RootLogs}), the listing from kept headers
 * ({@link KeptHeaders}), the root's shape checks and the probe of one log.
 * What a process that only reads a root (a `sessref list`) lists it with;
 * the dsh persistence of `@sessref/host` answers through the same classes,
 * and the plugin reads the dsh roots mirrored from other machines with them
 * (here rather than in `@sessref/host`, which the plugin's tarball does not
 * carry: these need only the dsh functions a host already has).
 * @module @sessref/dsh/reading
 */
export { RootLogs } from './root-logs.js';
export { SessionLogError, isSessionLogErrorCode } from './session-log-error.js';
export type { KeptRefusal } from './refusal-memory.js';
export type { ListedLog, StoredLog } from './log-reads.js';
export { KeptHeaders } from './kept-headers.js';
export { RootFormatError, assertSupportedRoot, type RootFormatCode } from './root-shape.js';
export { HEADER_BUDGET_BYTES, MAX_LOG_BYTES, probeLog, scanFirstFrame, type LogProbeCode, type LogProblem, type ProbeCounters } from './log-probe.js';
export { rootFingerprint, type RootFingerprint } from './root-fingerprint.js';
