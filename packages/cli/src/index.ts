/**
 * @sessref/cli as a library: the engine `sessref` and its inspector run on
 * (the real dsh host over a session root, with the title index and dsh's
 * SQLite FTS5 search), for embedding and benchmarks.
 * @module @sessref/cli
 */
export { Engine, type EngineOptions, type SessionSummary, type SessionView, type StepPreview } from './engine/engine.js';
