/**
 * @sessref/test-support: the harness the dsh and CLI suites share, over the
 * REAL DeepSeek Harness host packages. Never published. The session writer
 * and the loop-less agent are `@sessref/host`'s (the product writes through
 * them too); they are re-exported here so a suite imports one package.
 * @module @sessref/test-support
 */
export { createHost, createOwnedSession, type Host, type HostOptions, type OwnedSession } from './host.js';
export { makeAgent, runPreStep, type RunPreStepOptions } from './agent.js';
export {
  StepAgent,
  appendAssistant,
  appendExchange,
  appendInjected,
  appendToolResult,
  appendUser,
  compact,
  createSession,
  endTurn,
  setTitle,
  userPrompt,
} from '@sessref/host';
export { deviceSupport } from './special-files.js';
export { MARKERS, UNCARRIED_MARKERS, appendCompactedTurns, appendInjectedNote, appendToolTurn } from './markers.js';
export { expectedSnapshot, framePerRecord, writeGeneration, type GeneratedSession, type Step } from './generation-writer.js';
