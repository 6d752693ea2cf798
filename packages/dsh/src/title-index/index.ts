/**
 * `ctx.sessionReferenceCatalog` for a dsh JSONL session root: a title index
 * that answers discovery as `ctx.sessionQuery` would, re-reading only the
 * logs that changed. Node only (it walks and watches the file system).
 * @module @sessref/dsh/title-index
 */
import { SessionTitleIndex } from './title-index.js';

export { SessionTitleIndex, TitleIndexConfig, hostTitleReads } from './title-index.js';
export type { TitleReads } from './title-catalog.js';
export { defaultIndexFile, defaultSearchIndexFile } from './index-file.js';

export default SessionTitleIndex;
