import { relative } from 'node:path';
import type { TranscriptFormat } from '../transcripts/format.js';
import { AGENTS } from '../agents.js';
import { foldCopilot } from './fold.js';
import { copilotTranscripts } from './locate.js';
import { workspaceName } from './workspace-name.js';

/**
 * GitHub Copilot CLI's sessions (`@github/copilot`): one
 * `session-state/<session id>/events.jsonl` per session under
 * `${COPILOT_HOME:-~/.copilot}`, each folded to its current conversation,
 * titled by its `workspace.yaml` (see this package's README, "GitHub Copilot CLI").
 */
export const copilotFormat: TranscriptFormat = {
  name: AGENTS.copilot.name,
  displayName: AGENTS.copilot.displayName,
  home: AGENTS.copilot.home,
  transcripts: copilotTranscripts,
  titleIn: workspaceName,
  fold: (text, file) => foldCopilot(text, relative(file.home, file.path)),
};
