import { join } from 'node:path';
import { defineAgent } from '../agent-row.js';
import { configuredFolder } from '../configured-folder.js';
import type { SourceEnvironment } from '../transcripts/format.js';

/**
 * Where Qwen Code keeps its sessions: `projects/` in its runtime folder,
 * which is `$QWEN_RUNTIME_DIR`, else `$QWEN_HOME`, else `~/.qwen`, each
 * variable counting when set and not empty, a leading `~` meaning the home
 * (`Storage.getRuntimeBaseDir`, `getGlobalQwenDir`, `resolvePath`).
 */
function qwenProjectsDir(environment: SourceEnvironment): string {
  const { env, home } = environment;
  const base = configuredFolder(env['QWEN_RUNTIME_DIR'], home) ?? configuredFolder(env['QWEN_HOME'], home) ?? join(home, '.qwen');
  return join(base, 'projects');
}

/** Qwen Code's row in the agent table. */
export const qwenCodeAgent = defineAgent({
  name: 'qwen-code',
  displayName: 'Qwen Code',
  movedBy: ['QWEN_HOME', 'QWEN_RUNTIME_DIR'],
  home: qwenProjectsDir,
  owns: 'parent',
  // A mirror of another machine pulls the project chats, never `oauth_creds.json` or `settings.json` in `~/.qwen`.
  mirrored: ['.qwen/projects/'],
  reader: { transcripts: async () => (await import('./index.js')).qwenCodeFormat },
});
