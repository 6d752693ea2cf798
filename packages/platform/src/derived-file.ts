import { dirname } from 'node:path';
import { isJsonObject } from '@sessref/core/internal';
import { directoryProblem, replaceFileAtomically } from './atomic-file.js';
import { readRegularFile } from './regular-file.js';

/**
 * One kind of file sessref derives from sessions into its cache directory
 * (the dsh title index, the host's kept log headers, an agent's listing
 * cache): what it is called in a notice, the fields that say what it was
 * made from (its version, the root or folder), and the most bytes one may
 * have before it is not read.
 */
export interface DerivedFileKind {
  /** As a notice names it: `title index`, `kept headers`. */
  readonly name: string;
  readonly identity: Readonly<Record<string, string | number>>;
  readonly maxBytes: number;
}

/** A derived file as read: not there, there but not to be believed (and why), or its document (and the bytes it was parsed from). */
export type DerivedRead = { state: 'absent' } | { state: 'refused'; why: string } | { state: 'read'; document: Record<string, unknown>; bytes: Buffer };

/** A derived file's bytes as read, before its document is looked at (see {@link readDerivedBytes}). */
export type DerivedBytes = { state: 'absent' } | { state: 'refused'; why: string } | { state: 'read'; bytes: Buffer };

/**
 * The JSON document at `file`, when it is a derived file of `kind`. The one
 * rule every derived file is read by, refusing (never throwing) a file over
 * the kind's size or not a regular file (a FIFO, a socket or a device there
 * is never opened in a way that waits), one in a directory another user
 * owns or may write into (anyone could plant entries there), one that is
 * not a JSON object, and one of another identity (version, root, folder).
 * A refusal costs a rebuild from the sessions, which the caller may say.
 */
export function readDerivedFile(file: string, kind: DerivedFileKind): DerivedRead {
  const read = readDerivedBytes(file, kind);
  if (read.state !== 'read') return read;
  try {
    const document: unknown = JSON.parse(read.bytes.toString('utf8'));
    if (!isJsonObject(document)) return { state: 'refused', why: `it is not a saved ${kind.name}` };
    for (const [field, expected] of Object.entries(kind.identity)) {
      if (document[field] !== expected) return { state: 'refused', why: `it is of ${field} ${JSON.stringify(document[field])}, not ${JSON.stringify(expected)}` };
    }
    return { state: 'read', document, bytes: read.bytes };
  } catch (error) {
    return { state: 'refused', why: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * The bytes at `file` by {@link readDerivedFile}'s rule for the file itself
 * (its size, its type, its directory), its document left to the caller: for
 * a kind laid out so that a part of it can be found without parsing it all.
 */
export function readDerivedBytes(file: string, kind: DerivedFileKind): DerivedBytes {
  try {
    const bytes = readRegularFile(file, kind.maxBytes);
    if (bytes === undefined) return { state: 'absent' };
    const problem = directoryProblem(dirname(file));
    return problem === undefined ? { state: 'read', bytes } : { state: 'refused', why: `its directory ${problem}` };
  } catch (error) {
    return { state: 'refused', why: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * Replace `file` with a derived file of `kind` holding `body`, atomically
 * and only where {@link readDerivedFile} would believe it (see
 * `replaceFileAtomically`). False when it could not be written: the next
 * process rebuilds, nothing more.
 */
export function writeDerivedFile(file: string, kind: DerivedFileKind, body: Record<string, unknown>): boolean {
  return replaceFileAtomically(file, Buffer.from(JSON.stringify({ ...kind.identity, ...body })));
}
