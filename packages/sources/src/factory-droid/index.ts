import { relative } from 'node:path';
import type { TranscriptFormat } from '../transcripts/format.js';
import { AGENTS } from '../agents.js';
import { foldFactoryDroid } from './fold.js';
import { factoryDroidTranscripts } from './locate.js';

/**
 * Factory Droid's sessions (`droid`, `@factory/cli`): one JSONL file per
 * session under `~/.factory/sessions/<cwd>/`, each folded to its current
 * conversation (see this package's README, "Factory Droid").
 */
export const factoryDroidFormat: TranscriptFormat = {
  name: AGENTS['factory-droid'].name,
  displayName: AGENTS['factory-droid'].displayName,
  home: AGENTS['factory-droid'].home,
  transcripts: factoryDroidTranscripts,
  fold: (text, file) => foldFactoryDroid(text, relative(file.home, file.path)),
};
