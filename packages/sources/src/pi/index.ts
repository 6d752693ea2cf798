import { relative } from 'node:path';
import type { TranscriptFormat } from '../transcripts/format.js';
import { piAgent } from './agent.js';
import { foldPi } from './fold.js';
import { piTranscripts } from './locate.js';

/**
 * pi's sessions (`@mariozechner/pi-coding-agent`): one JSONL tree per
 * session under `${PI_CODING_AGENT_DIR:-~/.pi/agent}/sessions/<cwd>/`, each
 * folded to its current conversation (see this package's README, "pi").
 */
export const piFormat: TranscriptFormat = {
  name: piAgent.name,
  displayName: piAgent.displayName,
  home: piAgent.home,
  transcripts: piTranscripts,
  fold: (text, file) => foldPi(text, relative(file.home, file.path)),
};
