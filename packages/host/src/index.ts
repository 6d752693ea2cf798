/**
 * @sessref/host: the real dsh host sessref runs on, over one JSONL session
 * root (strict persistence, dsh's SQLite query engine, the title index, the
 * sessref plugin), the loop-less agent its `agent/pre-step` runs use, and the
 * one session writer with the demo data set (`sessref seed`, the benchmarks'
 * corpora and the suites write through them).
 * @module @sessref/host
 */
export { bootHost, bootStepHost, type HostOptions } from './host.js';
export {
  bootLayers,
  checkedPersistence,
  dshPersistence,
  pluginLayer,
  queryEngine,
  referencePlugin,
  sessionServices,
  titleIndex,
  type HostLayer,
} from './layers.js';
export { CheckedJsonlPersistence } from './storage.js';
export { ListedJsonlPersistence } from './snapshot-listing.js';
export { StepAgent, dispatchPreStep, runDetachedPreStep, type PreStepPayload, type StepAgentOptions } from './agent.js';
export {
  appendAssistant,
  appendEnteredMessages,
  appendExchange,
  appendInjected,
  appendToolResult,
  appendUser,
  betweenSteps,
  createSession,
  currentTurn,
  endTurn,
  setTitle,
  userPrompt,
  type AppendAssistantOptions,
  type AppendedAssistant,
  type AppendInjectedOptions,
  type AppendToolResultOptions,
  type AppendUserOptions,
  type AssistantStyle,
  type ContentInput,
  type CreateSessionOptions,
  type Exchange,
  type SetTitleOptions,
  type ToolUse,
  type TurnEndReason,
} from './writer.js';
export { compact, type CompactOptions, type CompactResult } from './compaction.js';
export { DEMO_SESSIONS, SeedConflictError, seedDemo, writeDemoSessions, type DemoSession } from './demo.js';
