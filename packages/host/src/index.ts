/**
 * @sessref/host: the real dsh host sessref runs on, over one JSONL session
 * root (strict persistence, dsh's SQLite query engine, the title index, the
 * sessref plugin), the agent handle its `agent/pre-step` runs use, and the
 * session writer with the demo data set `sessref seed` writes.
 * @module @sessref/host
 */
export { bootHost, type HostOptions } from './host.js';
export { CheckedJsonlPersistence, SessionLogError } from './storage.js';
export { HEADER_BUDGET_BYTES, MAX_LOG_BYTES, probeLog, scanFirstFrame, type LogProbeCode, type LogProblem, type ProbeCounters } from './log-probe.js';
export { RootFormatError, assertSupportedRoot, type RootFormatCode } from './root-shape.js';
export { runPreStep } from './agent.js';
export { SessionWriter, type Exchange, type ToolUse } from './writer.js';
export { SeedConflictError, seedDemo } from './demo.js';
