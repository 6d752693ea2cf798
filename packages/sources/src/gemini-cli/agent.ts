import { join, resolve } from 'node:path';
import { defineAgent } from '../agent-row.js';
import type { SourceEnvironment } from '../transcripts/format.js';

/**
 * Gemini CLI's folder: `$GEMINI_CLI_HOME/.gemini` when that is set and not
 * empty, else `~/.gemini` (`homedir()` in packages/core/src/utils/paths.ts,
 * `Storage.getGlobalGeminiDir`).
 */
function geminiDirectory(environment: SourceEnvironment): string {
  const override = environment.env['GEMINI_CLI_HOME'];
  return join(override !== undefined && override !== '' ? resolve(override) : environment.home, '.gemini');
}

/** Gemini CLI's row in the agent table. */
export const geminiCliAgent = defineAgent({
  name: 'gemini-cli',
  displayName: 'Gemini CLI',
  movedBy: ['GEMINI_CLI_HOME'],
  home: geminiDirectory,
  owns: 'home',
  // A mirror of another machine pulls the project folders (chats, `.project_root`) and the project map, never `oauth_creds.json` beside them.
  mirrored: ['.gemini/tmp/', '.gemini/projects.json'],
  reader: { transcripts: async () => (await import('./format.js')).geminiCliFormat },
});
