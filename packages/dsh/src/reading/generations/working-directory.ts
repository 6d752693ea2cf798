/**
 * The working directory a session moved to. From dsh 0.2.1-alpha.2 a session
 * may change its working directory while it runs; the header's `cwd` stays
 * the directory it started in, and each change is one v4 event
 * `working-directory/change` whose data is `{ cwd }`, an absolute path. dsh's
 * `workingDirectory` projection starts from the header's `cwd` and takes the
 * `cwd` of every change in log order, so the last change is the directory in
 * effect (sources: dsh-generations.md, "dsh 0.2.x facts"; upstream package
 * `packages/session/working-directory`). The log format stays v4: the event
 * only adds to v4's vocabulary.
 *
 * rc.8 has no such event, so the reader keeps it in the log as an ignorable
 * placeholder at its seq, like any event rc.8 cannot hold (upcast.ts), and
 * this module keeps what it said beside the log.
 */
import { isAbsolute } from 'node:path';
import { corrupt } from './errors.js';
import type { RawEvent } from './envelope.js';
import { isRecord } from './json.js';

export const WORKING_DIRECTORY_CHANGE = 'working-directory/change';

/** The directory a `working-directory/change` event moved its session to; damage when it names none. */
export function changedDirectory(raw: RawEvent): string {
  const cwd = isRecord(raw.data) ? raw.data['cwd'] : undefined;
  if (typeof cwd !== 'string' || !isAbsolute(cwd)) throw corrupt(`event ${raw.seq} (${raw.type}) does not name an absolute directory`);
  return cwd;
}

