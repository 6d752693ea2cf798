import type { SourceEnvironment } from '../transcripts/format.js';
import { xdgDataFolder } from '../opencode/locate.js';

/**
 * Kilo's data folder: `$XDG_DATA_HOME/kilo`, else `~/.local/share/kilo`
 * (`../shared/formats/kilo.md`: the Kilo CLI is opencode's `Global.Path.data`
 * under its own name), holding `kilo.db`.
 */
export function kiloDataDirectory(environment: SourceEnvironment): string {
  return xdgDataFolder(environment, 'kilo');
}
