import { join, resolve } from 'node:path';
import { defineAgent } from '../agent-row.js';
import type { SourceEnvironment } from '../transcripts/format.js';

/**
 * Where Continue keeps its sessions: `sessions/` in its global folder,
 * `$CONTINUE_GLOBAL_DIR` when set and not empty (read as given: Continue
 * expands no `~`), else `~/.continue` (`getSessionDir`,
 * `extensions/cli/src/session.ts`).
 */
function continueSessionsDir(environment: SourceEnvironment): string {
  const global = environment.env['CONTINUE_GLOBAL_DIR'];
  return join(global === undefined || global === '' ? join(environment.home, '.continue') : resolve(global), 'sessions');
}

/** Continue's row in the agent table. */
export const continueAgent = defineAgent({
  name: 'continue',
  displayName: 'Continue',
  movedBy: ['CONTINUE_GLOBAL_DIR'],
  home: continueSessionsDir,
  owns: 'parent',
  // A mirror of another machine pulls the sessions and their index, never `config.yaml`, which holds API keys.
  mirrored: ['.continue/sessions/'],
  reader: { transcripts: async () => (await import('./index.js')).continueFormat },
});
