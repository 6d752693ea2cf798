import type { TranscriptFormat } from '../transcripts/format.js';
import { AGENTS } from '../agents.js';
import { foldClaudeCode } from './fold.js';
import { claudeCodeTranscripts } from './locate.js';

/**
 * Claude Code's sessions: `<uuid>.jsonl` transcripts under
 * `${CLAUDE_CONFIG_DIR:-~/.claude}/projects/<project>/`, each folded to its
 * current conversation (see this package's README, "Claude Code").
 */
export const claudeCodeFormat: TranscriptFormat = {
  name: AGENTS['claude-code'].name,
  displayName: AGENTS['claude-code'].displayName,
  home: AGENTS['claude-code'].home,
  transcripts: claudeCodeTranscripts,
  fold: foldClaudeCode,
};
