import { relative } from 'node:path';
import { AGENTS } from '../agents.js';
import type { TranscriptFormat } from '../transcripts/format.js';
import { foldPi } from './fold.js';
import { piSessionsDir, piTranscripts } from './locate.js';

/**
 * pi's sessions (`@mariozechner/pi-coding-agent`): one JSONL tree per
 * session under `${PI_CODING_AGENT_DIR:-~/.pi/agent}/sessions/<cwd>/`, each
 * folded to its current conversation (see this package's README, "pi").
 */
export const piFormat: TranscriptFormat = {
  name: 'pi',
  displayName: AGENTS.pi.displayName,
  home: piSessionsDir,
  transcripts: piTranscripts,
  fold: (text, file) => foldPi(text, relative(file.home, file.path)),
};
