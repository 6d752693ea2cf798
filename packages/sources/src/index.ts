/**
 * Other agents' sessions as read-only sources for sessref: one folder per
 * agent, each a pure fold from that agent's records to the core's surface,
 * behind the core's `SessionSource` seam. Also the file plumbing every
 * source shares: the revision record of a file and bounded reads that never
 * wait on a special file. Node only.
 * @module @sessref/sources
 */
export { claudeCodeFormat } from './claude-code/index.js';
export { codexFormat } from './codex/index.js';
export { SourceReadError, type SourceReadCode } from './errors.js';
export { geminiCliFormat } from './gemini-cli/format.js';
export { foreignSessionId, nativeSessionId } from './ids.js';
export { AGENT_NAMES, agentFolders, isAgentName, localSources, unreadableHomes, type AgentFolder, type AgentName, type LocalSource, type UnreadableHome } from './local.js';
export { hostedSource, isRemoteName, mirrorHome, mirroredSources, mirrors, type MirroredSource } from './mirrors.js';
export { opencodeSource, type OpencodeSourceOptions } from './opencode/source.js';
export type { SourceEnvironment, Transcript, TranscriptFile, TranscriptFormat } from './transcripts/format.js';
export { sessionLabel, transcriptSource, type SourceProblem, type TranscriptSource, type TranscriptSourceOptions } from './transcripts/transcript-source.js';
