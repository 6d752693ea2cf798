import { join } from 'node:path';
import { defineAgent } from '../agent-row.js';
import { configuredFolder } from '../configured-folder.js';
import type { SourceEnvironment } from '../transcripts/format.js';

/**
 * Where pi keeps its sessions: `sessions/` in its agent folder, which is
 * `$PI_CODING_AGENT_DIR` when that is set and not empty (a leading `~`
 * meaning the home, as pi's `expandTildePath` reads it), else `~/.pi/agent`
 * (`getAgentDir`, `getSessionsDir` in `config.js`).
 */
function piSessionsDir(environment: SourceEnvironment): string {
  return join(configuredFolder(environment.env['PI_CODING_AGENT_DIR'], environment.home) ?? join(environment.home, '.pi', 'agent'), 'sessions');
}

/** pi's row in the agent table. */
export const piAgent = defineAgent({
  name: 'pi',
  displayName: 'pi',
  movedBy: ['PI_CODING_AGENT_DIR'],
  home: piSessionsDir,
  owns: 'parent',
  // A mirror of another machine pulls the sessions, never `auth.json` in `~/.pi/agent`.
  mirrored: ['.pi/agent/sessions/'],
  reader: { transcripts: async () => (await import('./index.js')).piFormat },
});
