/**
 * @sessref/dsh/log-generations: the reader of every dsh log generation (v0
 * to v4), a module of its own because it loads dsh's session functions:
 * `@sessref/dsh/reading` loads it with the first log it reads.
 * @module @sessref/dsh/log-generations
 */
export { effectiveCwd, readSessionLog, type SessionLogRead } from './read-session-log.js';
export { SessionLogReadError, type SessionLogReadCode } from './errors.js';
export type { ReadLimits, TornTail } from './physical.js';
