import { AGENTS } from '../agents.js';
import type { TranscriptFormat } from '../transcripts/format.js';
import { foldClaudeCode } from './fold.js';
import { claudeCodeTranscripts, claudeProjectsDir } from './locate.js';

/**
 * Claude Code's sessions: `<uuid>.jsonl` transcripts under
 * `${CLAUDE_CONFIG_DIR:-~/.claude}/projects/<project>/`, each folded to its
 * current conversation (see this package's README, "Claude Code").
 */
export const claudeCodeFormat: TranscriptFormat = {
  name: 'claude-code',
  displayName: AGENTS['claude-code'].displayName,
  home: claudeProjectsDir,
  transcripts: claudeCodeTranscripts,
  fold: foldClaudeCode,
};
