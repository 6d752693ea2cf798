import { accessSync, constants, lstatSync } from 'node:fs';
import { basename, isAbsolute, join, relative } from 'node:path';
import { errorCode } from '@sessref/core';
import { listDirectory, nodeCrypto, type DirectoryBudget, type DirectoryEntry, type WalkTrail, readRegularFile } from '@sessref/platform';
import { asObject, asString, parseJson } from '../json-lines.js';
import type { SkippedFolderHandler, SourceEnvironment, TranscriptFile, TranscriptFormat } from '../transcripts/format.js';
import { AGENTS } from '../agents.js';
import { geminiTranscript } from './fold.js';

/** Largest `projects.json` or `.project_root` read: a path registry, never near this. */
const MAX_REGISTRY_BYTES = 4 * 1024 * 1024;

/** Names one discovery looks at, across `tmp/` and every project's `chats/`: far above a real home, a bound on a hostile one. */
const MAX_WALK_ENTRIES = 500_000;

/** A chat file: `session-<UTC minute>-<first 8 of the id>.json` (legacy) or `.jsonl` (chatRecordingService.ts). */
const CHAT_FILE = /^(session-.+)\.jsonl?$/;

/**
 * The sessions' chat files: `tmp/<project>/chats/session-*.json[l]`, not
 * subagents' chats (`chats/<parent id>/…`, a level down). The native id is
 * the file name without its extension, which a legacy `.json` keeps when
 * Gemini rewrites it as `.jsonl` on resume; the `.jsonl` then wins. A
 * `tmp/` or `chats/` folder that cannot be listed or searched, or a link
 * loop in a project's or its `chats/`'s place, is skipped alone and named
 * to `onSkipped`: the chats of every other project are listed.
 */
function chatFiles(environment: SourceEnvironment, trail?: WalkTrail, onSkipped?: SkippedFolderHandler): TranscriptFile[] {
  const home = AGENTS['gemini-cli'].home(environment);
  const budget = { entries: MAX_WALK_ENTRIES, trail };
  const projectRoots = projectRegistry(home, trail);
  const files = new Map<string, TranscriptFile>();
  // A link loop in a project's place is reported; one in place of a chat file is only left out.
  for (const project of listFolder(join(home, 'tmp'), home, budget, onSkipped, onSkipped)) {
    if (project.kind !== 'directory') continue;
    const cwd = projectRoot(project.path, trail) ?? projectRoots.get(project.name);
    for (const entry of listFolder(join(project.path, 'chats'), home, budget, onSkipped)) {
      const nativeId = CHAT_FILE.exec(entry.name)?.[1];
      if (entry.kind !== 'file' || nativeId === undefined) continue;
      const known = files.get(nativeId);
      if (known !== undefined && !(known.path.endsWith('.json') && entry.name.endsWith('.jsonl'))) continue;
      files.set(nativeId, { nativeId, path: entry.path, home, ...(cwd === undefined ? {} : { cwd }) });
    }
  }
  return [...files.values()];
}

/**
 * The folder's entries, as `listDirectory` gives them; none when it is
 * missing. One that cannot be listed or searched (its files could not be
 * stat-ed) gives none and is named to `onSkipped`; a link in it that loops
 * or cannot be resolved but for a missing target is named to `onBrokenLink`.
 */
function listFolder(folder: string, home: string, budget: DirectoryBudget, onSkipped: SkippedFolderHandler | undefined, onBrokenLink?: SkippedFolderHandler): DirectoryEntry[] {
  // Followed even when missing or closed: its creation or a change of mode is a change to the walk.
  budget.trail?.folders.add(folder);
  try {
    accessSync(folder, constants.R_OK | constants.X_OK);
    return listDirectory(folder, home, budget, onBrokenLink);
  } catch (error) {
    const code = errorCode(error);
    if (code !== 'ENOENT' && code !== 'ENOTDIR') onSkipped?.(folder, error);
    return [];
  }
}

/** The folder a project's temp directory belongs to, as Gemini wrote it to `tmp/<slug>/.project_root` (projectRegistry.ts). */
function projectRoot(projectDir: string, trail: WalkTrail | undefined): string | undefined {
  return absolutePath(readSmallFile(join(projectDir, '.project_root'), trail)?.trim());
}

/**
 * `projects.json` (`{projects: {<path>: <slug>}}`, projectRegistry.ts)
 * turned around: each project's folder by its temp directory's name, the
 * slug, and by the SHA-256 of the path that named temp directories before
 * v0.29.0 (`getProjectHash`, paths.ts).
 */
function projectRegistry(home: string, trail: WalkTrail | undefined): Map<string, string> {
  const roots = new Map<string, string>();
  const text = readSmallFile(join(home, 'projects.json'), trail);
  if (text === undefined) return roots;
  let projects: Record<string, unknown> | undefined;
  try {
    projects = asObject(asObject(parseJson(text, 'projects.json'))?.['projects']);
  } catch {
    return roots;
  }
  for (const [path, slug] of Object.entries(projects ?? {})) {
    if (absolutePath(path) === undefined) continue;
    roots.set(nodeCrypto().createHash('sha256').update(path).digest('hex'), path);
    const name = asString(slug);
    if (name !== undefined) roots.set(name, path);
  }
  return roots;
}

function absolutePath(path: string | undefined): string | undefined {
  return path !== undefined && path !== '' && isAbsolute(path) ? path : undefined;
}

/**
 * A small file's text; `undefined` when it is missing, unreadable, too
 * large or a symbolic link (it only adds a cwd, and a link may lead out of
 * the agent's folder).
 */
function readSmallFile(path: string, trail: WalkTrail | undefined): string | undefined {
  trail?.files.add(path);
  try {
    if (lstatSync(path, { throwIfNoEntry: false })?.isFile() !== true) return undefined;
    return readRegularFile(path, MAX_REGISTRY_BYTES)?.toString('utf8');
  } catch {
    return undefined;
  }
}

/** Gemini CLI's chat recordings (`~/.gemini/tmp/*\/chats`), legacy JSON and JSONL alike. */
export const geminiCliFormat: TranscriptFormat = {
  name: AGENTS['gemini-cli'].name,
  displayName: AGENTS['gemini-cli'].displayName,
  home: AGENTS['gemini-cli'].home,
  transcripts: chatFiles,
  fold: (text, file) => geminiTranscript(text, basename(file.path), relative(file.home, file.path), file.cwd),
};
