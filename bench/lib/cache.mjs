/**
 * The bench cache directory (`$TMPDIR/sessref-bench/`): discovery corpora,
 * sessref's persisted title indexes and the raw results of the last run.
 */
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';

export const CACHE_DIR = join(tmpdir(), 'sessref-bench');

/** The persisted title index of one corpus root, one file per root. */
export function titleIndexFile(root) {
  return join(CACHE_DIR, 'title-index', `${basename(root)}.json`);
}
