import { join } from 'node:path';
import { defineAgent } from '../agent-row.js';
import type { SourceEnvironment } from '../transcripts/format.js';

/**
 * Where Claude Code keeps its transcripts: `projects/` under
 * `$CLAUDE_CONFIG_DIR` when it is set and not empty, else under
 * `~/.claude`. Claude Code writes the NFC form of the variable's path.
 */
function claudeProjectsDir(environment: SourceEnvironment): string {
  const configured = environment.env['CLAUDE_CONFIG_DIR'];
  const root = configured === undefined || configured === '' ? join(environment.home, '.claude') : configured.normalize('NFC');
  return join(root, 'projects');
}

/** Claude Code's row in the agent table. */
export const claudeCodeAgent = defineAgent({
  name: 'claude-code',
  displayName: 'Claude Code',
  movedBy: ['CLAUDE_CONFIG_DIR'],
  home: claudeProjectsDir,
  owns: 'parent',
  // A mirror of another machine pulls the transcripts alone, never `~/.claude` whole, which holds `.credentials.json`.
  mirrored: ['.claude/projects/'],
  reader: { transcripts: async () => (await import('./index.js')).claudeCodeFormat },
});
