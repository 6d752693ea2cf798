import { join, resolve } from 'node:path';
import { defineAgent } from '../agent-row.js';
import type { SourceEnvironment } from '../transcripts/format.js';

/** Codex's home: `$CODEX_HOME` when set, else `~/.codex`. */
function codexHome(environment: SourceEnvironment): string {
  const configured = environment.env['CODEX_HOME'];
  return configured === undefined || configured === '' ? join(environment.home, '.codex') : resolve(configured);
}

/** Codex's row in the agent table. */
export const codexAgent = defineAgent({
  name: 'codex',
  displayName: 'Codex',
  movedBy: ['CODEX_HOME'],
  home: codexHome,
  owns: 'home',
  // A mirror of another machine pulls the rollouts and the title index, never `auth.json` or `config.toml` beside them.
  mirrored: ['.codex/sessions/', '.codex/archived_sessions/', '.codex/session_index.jsonl'],
  reader: { transcripts: async () => (await import('./index.js')).codexFormat },
});
