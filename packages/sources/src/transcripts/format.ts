import type { SurfaceMessage } from '@sessref/core';
import type { WalkTrail } from '@sessref/platform';

/** Where a source looks: the user's home and the environment that may move an agent's folders. */
export interface SourceEnvironment {
  home: string;
  env: Readonly<Record<string, string | undefined>>;
}

/** Told of a folder a walk left out, and why. */
export type SkippedFolderHandler = (folder: string, error: unknown) => void;

/** One session's transcript file in an agent's home. */
export interface TranscriptFile {
  /** The agent's own id for the session. */
  nativeId: string;
  /** The file's path. */
  path: string;
  /** The folder the agent keeps its sessions in (messages name files relative to it). */
  home: string;
  /** The working directory, when the agent records it beside the transcript rather than in it (Gemini CLI's project folders). */
  cwd?: string;
  /** When the session started (epoch ms), when the agent records it beside the transcript rather than in it (Continue's `sessions.json`). */
  createdAt?: number;
  /**
   * Files beside the transcript that its fold reads too (Cline's messages
   * and compaction sidecar beside its session manifest): read with it,
   * under the same bound, a missing one left out. Their revisions join the
   * transcript's in its change stamp, and the folders' watch follows them.
   */
  companions?: readonly string[];
  /**
   * The agent's own file naming the session (Copilot CLI's `workspace.yaml`),
   * whose title ({@link TranscriptFormat.titleIn}) wins over the fold's:
   * read only when it is a regular file, not a link, within a few KiB; one
   * that cannot be read names nothing. Its revision joins the transcript's
   * in what a listing cache keeps the facts by, and the watch follows it.
   */
  titleFile?: string;
}

/** What the fold of one transcript gives: the session's facts and its current conversation. */
export interface Transcript {
  /** When the session started, epoch ms. */
  createdAt: number;
  /** The working directory it ran in, when the transcript says. */
  cwd?: string;
  /** Its title, when the agent gave it one. */
  title?: string;
  /** The current conversation, as surface messages: the core projects and budgets them like any other. */
  messages: SurfaceMessage[];
  /** The number of the last record read (0-based), `null` for none: a snapshot's `capturedThroughSeq`. */
  throughRecord: number | null;
  /**
   * `false` when the agent itself offers no such session to resume (Gemini
   * CLI's chat files that hold no message): listings leave it out, as the
   * agent does, rather than show a stray second entry for one session.
   */
  offered?: false;
}

/**
 * One agent's session store: where its transcripts are, and the pure fold of
 * one transcript into a {@link Transcript}. A format reads nothing but its
 * agent's files and writes nothing at all.
 */
export interface TranscriptFormat {
  /** The provenance name (`claude-code`, `codex`, …), also the prefix of its session ids. */
  readonly name: string;
  /** How labels name the agent: `Claude Code`. */
  readonly displayName: string;
  /** The folder the agent keeps its sessions in, from the environment (whether or not it exists). */
  home(environment: SourceEnvironment): string;
  /**
   * The transcript files of every session in the agent's home(s); none when
   * it has none. Records what it looked at in `trail`, and names to
   * `onSkipped` each folder it had to leave out (it cannot be searched, a
   * link loop stands in its place): the sessions there are not listed, the
   * others are.
   */
  transcripts(environment: SourceEnvironment, trail?: WalkTrail, onSkipped?: SkippedFolderHandler): TranscriptFile[];
  /** The file's text from its bytes (a compressed transcript decompresses here); UTF-8 when absent. */
  decode?(bytes: Buffer, file: TranscriptFile): string;
  /** Fold a transcript's text, with its companions' texts by path. Pure; throws a `SourceReadError` for what it cannot read. */
  fold(text: string, file: TranscriptFile, companions?: ReadonlyMap<string, string>): Transcript;
  /** Titles the agent keeps in one index outside the transcripts (Codex's `session_index.jsonl`), by native id (read with every discovery); records the files it read in `trail`. */
  titles?(environment: SourceEnvironment, trail?: WalkTrail): ReadonlyMap<string, string>;
  /** The title in a session's own {@link TranscriptFile.titleFile}, from its text; none when it names none. */
  titleIn?(text: string): string | undefined;
}
