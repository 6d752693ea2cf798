import { relative } from 'node:path';
import type { TranscriptFormat } from '../transcripts/format.js';
import { AGENTS } from '../agents.js';
import { foldPi } from './fold.js';
import { piTranscripts } from './locate.js';

/**
 * pi's sessions (`@mariozechner/pi-coding-agent`): one JSONL tree per
 * session under `${PI_CODING_AGENT_DIR:-~/.pi/agent}/sessions/<cwd>/`, each
 * folded to its current conversation (see this package's README, "pi").
 */
export const piFormat: TranscriptFormat = {
  name: AGENTS.pi.name,
  displayName: AGENTS.pi.displayName,
  home: AGENTS.pi.home,
  transcripts: piTranscripts,
  fold: (text, file) => foldPi(text, relative(file.home, file.path)),
};
