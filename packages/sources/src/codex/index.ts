/**
 * OpenAI Codex CLI rollouts as a transcript format: where they are
 * ({@link findRollouts}), how a `.jsonl.zst` one is decompressed, the fold
 * of one rollout into its current conversation, and the thread names Codex
 * keeps in `session_index.jsonl`. The rules, with the Codex source each
 * comes from, are in this package's README ("Codex").
 */
import type { TranscriptFormat } from '../transcripts/format.js';
import { AGENTS } from '../agents.js';
import { foldRollout } from './fold.js';
import { findRollouts, rolloutName } from './home.js';
import { readCodexTitles } from './titles.js';
import { decompressZstd } from './zstd.js';

export const codexFormat: TranscriptFormat = {
  name: AGENTS.codex.name,
  displayName: AGENTS.codex.displayName,
  home: AGENTS.codex.home,
  transcripts: findRollouts,
  decode: (bytes, file) => (rolloutName(file.path)?.compressed === true ? decompressZstd(bytes) : bytes).toString('utf8'),
  fold: foldRollout,
  titles: readCodexTitles,
};
