import { relative } from 'node:path';
import { AGENTS } from '../agents.js';
import type { TranscriptFormat } from '../transcripts/format.js';
import { foldFactoryDroid } from './fold.js';
import { factoryDroidSessionsDir, factoryDroidTranscripts } from './locate.js';

/**
 * Factory Droid's sessions (`droid`, `@factory/cli`): one JSONL file per
 * session under `~/.factory/sessions/<cwd>/`, each folded to its current
 * conversation (see this package's README, "Factory Droid").
 */
export const factoryDroidFormat: TranscriptFormat = {
  name: 'factory-droid',
  displayName: AGENTS['factory-droid'].displayName,
  home: factoryDroidSessionsDir,
  transcripts: factoryDroidTranscripts,
  fold: (text, file) => foldFactoryDroid(text, relative(file.home, file.path)),
};
