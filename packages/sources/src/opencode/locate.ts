import { isAbsolute, join } from 'node:path';
import type { SourceEnvironment } from '../transcripts/format.js';

/**
 * opencode's data folder: `$XDG_DATA_HOME/opencode`, else
 * `~/.local/share/opencode` (`Global.Path.data`, xdg-basedir). A relative
 * `XDG_DATA_HOME` is invalid by the XDG spec and ignored.
 */
export function opencodeDataDirectory(environment: SourceEnvironment): string {
  const xdg = environment.env['XDG_DATA_HOME'];
  return join(xdg !== undefined && isAbsolute(xdg) ? xdg : join(environment.home, '.local', 'share'), 'opencode');
}
