import { defineAgent } from '../agent-row.js';
import { xdgDataFolder } from './locate.js';
import type { SourceEnvironment } from '../transcripts/format.js';

/** opencode's data folder: `$XDG_DATA_HOME/opencode`, else `~/.local/share/opencode` (`Global.Path.data`). */
function opencodeDataDirectory(environment: SourceEnvironment): string {
  return xdgDataFolder(environment, 'opencode');
}

/** opencode's row in the agent table. */
export const opencodeAgent = defineAgent({
  name: 'opencode',
  displayName: 'opencode',
  movedBy: ['XDG_DATA_HOME'],
  home: opencodeDataDirectory,
  owns: 'home',
  // A mirror of another machine pulls the JSON store and the databases of every channel with their `-wal`, never `auth.json` in the same folder.
  mirrored: ['.local/share/opencode/storage/', '.local/share/opencode/opencode*.db*'],
  reader: { store: async (environment, { listingCacheFile }) => (await import('./source.js')).opencodeSource({ environment, listingCacheFile }) },
});
