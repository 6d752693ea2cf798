import { join } from 'node:path';
import { defineAgent } from '../agent-row.js';
import { configuredFolder } from '../configured-folder.js';
import type { SourceEnvironment } from '../transcripts/format.js';

/**
 * Where Factory Droid keeps its sessions: `.factory/sessions` under the
 * folder `$FACTORY_HOME_OVERRIDE` names when set and not empty (a leading
 * `~` read as the home), else under the home. The variable is a string of
 * droid's binary; that it stands for the home `.factory` is appended to
 * (rather than for `.factory` itself) is how Factory's own SDK and desktop
 * app set it, not something run here (format page, "Where sessions live").
 */
function factoryDroidSessionsDir(environment: SourceEnvironment): string {
  return join(configuredFolder(environment.env['FACTORY_HOME_OVERRIDE'], environment.home) ?? environment.home, '.factory', 'sessions');
}

/** Factory Droid's row in the agent table. */
export const factoryDroidAgent = defineAgent({
  name: 'factory-droid',
  displayName: 'Factory Droid',
  movedBy: ['FACTORY_HOME_OVERRIDE'],
  home: factoryDroidSessionsDir,
  owns: 'parent',
  // A mirror of another machine pulls the sessions, never the rest of `~/.factory` (its settings and login).
  mirrored: ['.factory/sessions/'],
  reader: { transcripts: async () => (await import('./index.js')).factoryDroidFormat },
});
