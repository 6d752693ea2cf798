import { isAbsolute, join } from 'node:path';
import type { SourceEnvironment } from '../transcripts/format.js';

/**
 * An XDG data folder: `$XDG_DATA_HOME/<name>`, else `~/.local/share/<name>`
 * (xdg-basedir, which opencode's `Global.Path.data` and its forks use). A
 * relative `XDG_DATA_HOME` is invalid by the XDG spec and ignored.
 */
export function xdgDataFolder(environment: SourceEnvironment, name: string): string {
  const xdg = environment.env['XDG_DATA_HOME'];
  return join(xdg !== undefined && isAbsolute(xdg) ? xdg : join(environment.home, '.local', 'share'), name);
}

