import { relative } from 'node:path';
import type { TranscriptFormat } from '../transcripts/format.js';
import { AGENTS } from '../agents.js';
import { foldContinue } from './fold.js';
import { continueTranscripts } from './locate.js';

/**
 * Continue's sessions (the `cn` CLI, `@continuedev/cli`): one JSON document
 * per session in `${CONTINUE_GLOBAL_DIR:-~/.continue}/sessions/`, each
 * folded to its current conversation (see this package's README,
 * "Continue").
 */
export const continueFormat: TranscriptFormat = {
  name: AGENTS.continue.name,
  displayName: AGENTS.continue.displayName,
  home: AGENTS.continue.home,
  transcripts: continueTranscripts,
  fold: (text, file) => foldContinue(text, relative(file.home, file.path), file.createdAt),
};
