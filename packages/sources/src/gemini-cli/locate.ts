import { join, resolve } from 'node:path';
import type { SourceEnvironment } from '../transcripts/format.js';

/**
 * Gemini CLI's folder: `$GEMINI_CLI_HOME/.gemini` when that is set and not
 * empty, else `~/.gemini` (`homedir()` in packages/core/src/utils/paths.ts,
 * `Storage.getGlobalGeminiDir`).
 */
export function geminiDirectory(environment: SourceEnvironment): string {
  const override = environment.env['GEMINI_CLI_HOME'];
  return join(override !== undefined && override !== '' ? resolve(override) : environment.home, '.gemini');
}
