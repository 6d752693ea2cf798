/**
 * Which on-disk shapes of a session root sessref reads, and a clear refusal
 * for the others.
 *
 * sessref reads what dsh writes with its default settings:
 * `<root>/<project>/<session>/<log>`, zstd, each session's current log being
 * its highest generation (see `@sessref/dsh/jsonl-root`). Two other shapes
 * exist in the wild, and dsh's own backend refuses them with a message that
 * names an absolute path and a config key the user never set:
 *
 * - an uncompressed root (`compression: 'none'`);
 * - the flat pre-release layout, `<project>/<id>.jsonl[.zstd]`.
 *
 * Each is refused for the whole root, before anything is read, in one line
 * that names the file found and what is supported (as dsh refuses the whole
 * root). Transient `*.tmp` files dsh stages beside a log, and lock files, are
 * not logs and are ignored.
 */
import type { Dirent } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_LOG_FILE_NAME, decodeSessionDirectory, flatLogSessionId, logFileName, parseLogFileName, readEntries, type ListDirectory } from '../jsonl-root/index.js';
import { PROCESS_LISTINGS, childPath } from '@sessref/platform';

/** What sessref reads, as the refusals say it. */
const SUPPORTED_FORMAT = `dsh logs, <project>/<session>/${DEFAULT_LOG_FILE_NAME} to ${logFileName('zstd', 4)} (zstd, log formats v0-v4)`;

export type RootFormatCode = 'ROOT_UNCOMPRESSED' | 'ROOT_FLAT_LAYOUT';

/** A root (or one session of it) in an on-disk shape sessref does not read. Nothing was read from it. */
export class RootFormatError extends Error {
  constructor(
    readonly code: RootFormatCode,
    /** The offending file, relative to the root. */
    readonly found: string,
    message: string,
    readonly hint: string,
  ) {
    super(message);
    this.name = 'RootFormatError';
  }
}

interface Findings {
  uncompressed?: string;
  flat?: string;
}

/**
 * Throw a {@link RootFormatError} when the root holds a shape sessref does not read.
 * `list` lists a directory (a reader that checks often passes a cached one).
 */
export function assertSupportedRoot(root: string, list: ListDirectory = readEntries): void {
  // Under one hold every listing is the first look, so a root found supported stays so until the hold ends.
  const held = PROCESS_LISTINGS.heldEpoch;
  const shared = list === readEntries || list === PROCESS_LISTINGS.list;
  if (shared && held !== undefined && checkedUnder?.root === root && checkedUnder.epoch === held) return;
  const findings: Findings = {};
  for (const project of list(root)) {
    if (isLogFile(project)) findings.flat ??= project.name;
    if (!project.isDirectory()) continue;
    const projectPath = childPath(root, project.name);
    for (const session of list(projectPath)) {
      if (isLogFile(session)) findings.flat ??= join(project.name, session.name);
      if (session.isDirectory()) inspectSessionDirectory(childPath(projectPath, session.name), project.name, session.name, findings, list);
    }
  }
  const error = refusal(findings);
  if (error !== undefined) throw error;
  if (shared && held !== undefined) checkedUnder = { root, epoch: held };
}

/** The root last found supported under a hold of the process's listings, and that hold's epoch. */
let checkedUnder: { root: string; epoch: number } | undefined;

/**
 * The same check for one session: cheap enough for every read (reading every
 * session, as a first search does, costs one pass over each listing, not
 * one per session).
 */
export function assertSupportedSession(root: string, sessionId: string, list: ListDirectory = readEntries): void {
  const findings: Findings = {};
  for (const project of list(root)) {
    if (!project.isDirectory()) continue;
    const projectPath = childPath(root, project.name);
    for (const session of entriesById(list(projectPath)).get(sessionId) ?? []) {
      if (session.isDirectory()) inspectSessionDirectory(childPath(projectPath, session.name), project.name, session.name, findings, list);
      else findings.flat ??= join(project.name, session.name);
    }
  }
  const error = refusal(findings);
  if (error !== undefined) throw error;
}

/** Each listing's entries by the session id they name, built once per listing (a cached listing is the same array while its directory is unchanged). */
const indexes = new WeakMap<readonly Dirent[], Map<string, Dirent[]>>();

/** The entries of a project directory's listing by the session id each names: a session directory's decoded name, a flat log's id; in listing order. */
function entriesById(entries: readonly Dirent[]): Map<string, Dirent[]> {
  let index = indexes.get(entries);
  if (index !== undefined) return index;
  index = new Map();
  for (const entry of entries) {
    const sessionId = entry.isDirectory() ? decodeSessionDirectory(entry.name) : flatLogSessionId(entry.name);
    if (sessionId === undefined) continue;
    const named = index.get(sessionId);
    if (named === undefined) index.set(sessionId, [entry]);
    else named.push(entry);
  }
  indexes.set(entries, index);
  return index;
}

/** Look into the session directory `<project>/<session>` at `path` (named relative to the root, as a refusal names it, only when one is found). */
function inspectSessionDirectory(path: string, project: string, session: string, findings: Findings, list: ListDirectory): void {
  for (const file of list(path)) {
    if (file.isDirectory()) continue;
    // Only a name ending in `.jsonl` can be an uncompressed log: the others skip the parse (every session directory comes here).
    if (file.name.endsWith('.jsonl') && parseLogFileName(file.name)?.compression === 'none') findings.uncompressed ??= join(project, session, file.name);
  }
}

function refusal(findings: Findings): RootFormatError | undefined {
  if (findings.uncompressed !== undefined) {
    return new RootFormatError(
      'ROOT_UNCOMPRESSED',
      findings.uncompressed,
      `${findings.uncompressed} is an uncompressed log (dsh's compression: 'none'); sessref reads ${SUPPORTED_FORMAT}`,
      "point sessref at a root dsh writes with its default zstd compression",
    );
  }
  if (findings.flat !== undefined) {
    return new RootFormatError(
      'ROOT_FLAT_LAYOUT',
      findings.flat,
      `${findings.flat} is a flat log file of dsh's pre-release layout; sessref reads ${SUPPORTED_FORMAT}`,
      'use a root written by dsh 0.1.0-rc.8, or move each log into <project>/<session>/ yourself',
    );
  }
  return undefined;
}

function isLogFile(entry: Dirent): boolean {
  return !entry.isDirectory() && flatLogSessionId(entry.name) !== undefined;
}
