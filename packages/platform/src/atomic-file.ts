import { closeSync, constants, mkdirSync, openSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * A new file only: never through a symbolic link, a FIFO or a device left
 * at the name (`O_EXCL` with `O_CREAT` fails on any existing entry, a link
 * included), and never waiting on one.
 */
const CREATE_NEW = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

/** Temporary files this module instance has named. */
let temporaries = 0;

/**
 * Replace `file` with `bytes` atomically, for the derived files sessref keeps
 * (saved indexes, kept headers): readers see the old file or the new one,
 * never half of one. Only in a directory of this user's that no one else
 * can write into ({@link directoryProblem}; created private when missing):
 * elsewhere another user could swap the temporary file between its write and
 * the rename. The temporary file beside it is created new, under a name of
 * this process, a count and a random part: two writers of one file (two
 * worker threads of one process included) do not share it, and were
 * anything there already, the create fails rather than write through it.
 * (Neither needs `node:crypto` or `node:worker_threads`, which would cost
 * every command their loading.) The rename then replaces whatever is at
 * `file`. Returns false when it could not be written (a derived file that
 * cannot be saved only costs a later re-read), leaving no temporary file.
 */
export function replaceFileAtomically(file: string, bytes: Uint8Array): boolean {
  temporaries += 1;
  const temporary = `${file}.${process.pid}.${temporaries}.${Math.random().toString(36).slice(2, 10)}.tmp`;
  let created = false;
  try {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    if (directoryProblem(dirname(file)) !== undefined) return false;
    const fd = openSync(temporary, CREATE_NEW, 0o600);
    created = true;
    try {
      for (let written = 0; written < bytes.length; ) written += writeSync(fd, bytes, written);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, file);
    return true;
  } catch {
    try {
      if (created) unlinkSync(temporary);
    } catch {
      // already gone, or the directory refuses it: nothing more to do
    }
    return false;
  }
}

/**
 * Why `directory` cannot hold sessref's derived files safely, if it cannot:
 * it is not a directory (or is missing), it belongs to another user, or
 * others can write into it (and so plant or swap a file there). A file found
 * in such a directory is not trusted, and none is written there.
 */
export function directoryProblem(directory: string): string | undefined {
  const stats = statSync(directory, { throwIfNoEntry: false });
  if (stats === undefined) return 'does not exist';
  if (!stats.isDirectory()) return 'is not a directory';
  const uid = process.getuid?.();
  if (uid !== undefined && stats.uid !== uid) return 'belongs to another user';
  if ((stats.mode & 0o022) !== 0) return 'is writable by other users';
  return undefined;
}
