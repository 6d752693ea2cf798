import { join, resolve } from 'node:path';
import { defineAgent } from '../agent-row.js';
import type { SourceEnvironment } from '../transcripts/format.js';

/**
 * Where the Cline CLI keeps its sessions (`resolveSessionDataDir`,
 * `sdk/packages/shared/src/storage/paths.ts`): `$CLINE_SESSION_DATA_DIR`,
 * else `$CLINE_DATA_DIR/sessions`, else `<$CLINE_DIR or ~/.cline>/data/sessions`,
 * each variable counting when it is not blank once trimmed.
 */
function clineSessionsDir(environment: SourceEnvironment): string {
  const { env, home } = environment;
  const set = (name: string): string | undefined => env[name]?.trim() || undefined;
  const sessions = set('CLINE_SESSION_DATA_DIR');
  if (sessions !== undefined) return resolve(sessions);
  const data = set('CLINE_DATA_DIR') ?? join(set('CLINE_DIR') ?? join(home, '.cline'), 'data');
  return join(resolve(data), 'sessions');
}

/** Cline's row in the agent table. */
export const clineAgent = defineAgent({
  name: 'cline',
  displayName: 'Cline',
  movedBy: ['CLINE_DIR', 'CLINE_DATA_DIR', 'CLINE_SESSION_DATA_DIR'],
  home: clineSessionsDir,
  // Not 'parent': $CLINE_SESSION_DATA_DIR names the sessions folder itself, whose parent may be anyone's.
  owns: 'home',
  // A mirror of another machine pulls the sessions, never the rest of `~/.cline/data` (its settings and login).
  mirrored: ['.cline/data/sessions/'],
  reader: { transcripts: async () => (await import('./index.js')).clineFormat },
});
