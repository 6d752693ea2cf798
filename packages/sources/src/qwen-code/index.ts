import { relative } from 'node:path';
import type { TranscriptFormat } from '../transcripts/format.js';
import { AGENTS } from '../agents.js';
import { foldQwen } from './fold.js';
import { qwenTranscripts } from './locate.js';

/**
 * Qwen Code's sessions (`@qwen-code/qwen-code`): one JSONL chat recording
 * per session under `${QWEN_RUNTIME_DIR:-${QWEN_HOME:-~/.qwen}}/projects/<project>/chats/`,
 * each folded to its current conversation (see this package's README, "Qwen Code").
 */
export const qwenCodeFormat: TranscriptFormat = {
  name: AGENTS['qwen-code'].name,
  displayName: AGENTS['qwen-code'].displayName,
  home: AGENTS['qwen-code'].home,
  transcripts: qwenTranscripts,
  fold: (text, file) => foldQwen(text, relative(file.home, file.path)),
};
