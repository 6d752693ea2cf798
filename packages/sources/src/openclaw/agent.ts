import { join, resolve } from 'node:path';
import { defineAgent } from '../agent-row.js';
import type { SourceEnvironment } from '../transcripts/format.js';

/** A variable's value as OpenClaw reads a path from it: trimmed, blank as unset, a leading `~` the given home. */
function userPath(value: string | undefined, home: string): string | undefined {
  const trimmed = value?.trim();
  if (trimmed === undefined || trimmed === '') return undefined;
  return resolve(trimmed === '~' || trimmed.startsWith('~/') ? join(home, trimmed.slice(1)) : trimmed);
}

/**
 * Where OpenClaw keeps its agents' databases: `agents/` in its state folder,
 * which is `$OPENCLAW_STATE_DIR` when set and not blank, else `.openclaw` in
 * its home, `$OPENCLAW_HOME` when set and not blank, else `HOME`; a leading
 * `~` in either is the OS home (`resolveStateDir`, `src/config/state-dir.ts`;
 * `resolveEffectiveHomeDir`). OpenClaw falls back to a legacy `.clawdbot`
 * folder when only that one exists; sessref does not read it.
 */
function openclawAgentsDir(environment: SourceEnvironment): string {
  const home = userPath(environment.env['OPENCLAW_HOME'], environment.home) ?? environment.home;
  return join(userPath(environment.env['OPENCLAW_STATE_DIR'], home) ?? join(home, '.openclaw'), 'agents');
}

/** OpenClaw's row in the agent table. */
export const openclawAgent = defineAgent({
  name: 'openclaw',
  displayName: 'OpenClaw',
  movedBy: ['OPENCLAW_STATE_DIR', 'OPENCLAW_HOME'],
  home: openclawAgentsDir,
  owns: 'parent',
  mirrored: {
    withheld:
      "its agent database, the one file its sessions are in, also holds OpenClaw's auth profiles (table auth_profile_store), which no path can leave out; sessref never carries a credential off a machine",
  },
  reader: { store: async (environment, { listingCacheFile }) => (await import('./source.js')).openclawSource({ environment, listingCacheFile }) },
});
