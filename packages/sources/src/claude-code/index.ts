import type { TranscriptFormat } from '../transcripts/format.js';
import { claudeCodeAgent } from './agent.js';
import { foldClaudeCode } from './fold.js';
import { claudeCodeTranscripts } from './locate.js';

/**
 * Claude Code's sessions: `<uuid>.jsonl` transcripts under
 * `${CLAUDE_CONFIG_DIR:-~/.claude}/projects/<project>/`, each folded to its
 * current conversation (see this package's README, "Claude Code").
 */
export const claudeCodeFormat: TranscriptFormat = {
  name: claudeCodeAgent.name,
  displayName: claudeCodeAgent.displayName,
  home: claudeCodeAgent.home,
  transcripts: claudeCodeTranscripts,
  fold: foldClaudeCode,
};
