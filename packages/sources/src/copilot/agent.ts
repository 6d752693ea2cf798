import { join } from 'node:path';
import { defineAgent } from '../agent-row.js';
import { configuredFolder } from '../configured-folder.js';
import type { SourceEnvironment } from '../transcripts/format.js';

/**
 * Where Copilot CLI keeps its sessions: `session-state/` in its folder,
 * which is `$COPILOT_HOME` when set and not empty, else `~/.copilot`
 * (`copilot help environment`).
 */
function copilotSessionStateDir(environment: SourceEnvironment): string {
  return join(configuredFolder(environment.env['COPILOT_HOME'], environment.home) ?? join(environment.home, '.copilot'), 'session-state');
}

/** Copilot CLI's row in the agent table. */
export const copilotAgent = defineAgent({
  name: 'copilot',
  displayName: 'Copilot CLI',
  movedBy: ['COPILOT_HOME'],
  home: copilotSessionStateDir,
  owns: 'parent',
  // A mirror of another machine pulls the session folders, never the rest of `~/.copilot` (its settings and login).
  mirrored: ['.copilot/session-state/'],
  reader: { transcripts: async () => (await import('./index.js')).copilotFormat },
});
