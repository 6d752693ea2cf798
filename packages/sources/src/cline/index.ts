import { relative } from 'node:path';
import type { TranscriptFormat } from '../transcripts/format.js';
import { AGENTS } from '../agents.js';
import { foldCline } from './fold.js';
import { clineTranscripts } from './locate.js';

/**
 * The Cline CLI's sessions (`cline` 3, the SDK's session store): one folder
 * per session under `$CLINE_SESSION_DATA_DIR` or `~/.cline/data/sessions`,
 * its manifest, messages and compaction sidecar folded to its current
 * conversation (see this package's README, "Cline").
 */
export const clineFormat: TranscriptFormat = {
  name: AGENTS.cline.name,
  displayName: AGENTS.cline.displayName,
  home: AGENTS.cline.home,
  transcripts: clineTranscripts,
  fold: (text, file, companions) => {
    const [messages, compaction] = (file.companions ?? []).map((path) => companions?.get(path));
    return foldCline({ manifest: text, messages, compaction }, relative(file.home, file.path));
  },
};
