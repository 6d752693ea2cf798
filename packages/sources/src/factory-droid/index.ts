import { relative } from 'node:path';
import type { TranscriptFormat } from '../transcripts/format.js';
import { factoryDroidAgent } from './agent.js';
import { foldFactoryDroid } from './fold.js';
import { factoryDroidTranscripts } from './locate.js';

/**
 * Factory Droid's sessions (`droid`, `@factory/cli`): one JSONL file per
 * session under `~/.factory/sessions/<cwd>/`, each folded to its current
 * conversation (see this package's README, "Factory Droid").
 */
export const factoryDroidFormat: TranscriptFormat = {
  name: factoryDroidAgent.name,
  displayName: factoryDroidAgent.displayName,
  home: factoryDroidAgent.home,
  transcripts: factoryDroidTranscripts,
  fold: (text, file) => foldFactoryDroid(text, relative(file.home, file.path)),
};
