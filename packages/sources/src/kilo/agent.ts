import { defineAgent } from '../agent-row.js';
import { xdgDataFolder } from '../opencode/locate.js';
import type { SourceEnvironment } from '../transcripts/format.js';

/**
 * Kilo's data folder: `$XDG_DATA_HOME/kilo`, else `~/.local/share/kilo`
 * (`../shared/formats/kilo.md`: the Kilo CLI is opencode's `Global.Path.data`
 * under its own name), holding `kilo.db`.
 */
function kiloDataDirectory(environment: SourceEnvironment): string {
  return xdgDataFolder(environment, 'kilo');
}

/** Kilo's row in the agent table. */
export const kiloAgent = defineAgent({
  name: 'kilo',
  displayName: 'Kilo',
  movedBy: ['XDG_DATA_HOME'],
  home: kiloDataDirectory,
  owns: 'home',
  // A mirror of another machine pulls the databases of every channel with their `-wal`, never the rest of its data folder (opencode's layout, whose `auth.json` sits beside them).
  mirrored: ['.local/share/kilo/kilo*.db*'],
  // Kilo keeps opencode's store under its own names: opencode's reader (src/kilo/source.ts).
  reader: { store: async (environment, { listingCacheFile }) => (await import('./source.js')).kiloSource({ environment, listingCacheFile }) },
});
