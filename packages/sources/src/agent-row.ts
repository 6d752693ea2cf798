import type { SourceEnvironment, TranscriptFormat } from './transcripts/format.js';
import type { TranscriptSource } from './transcripts/transcript-source.js';

/**
 * One agent as the table (`agents.ts`) knows it, before reading any of its
 * sessions: how it is named, where its folder is, and how its reader is
 * loaded. Each agent's folder exports its row from `agent.ts`. Help texts
 * load every row, so a row imports nothing but path helpers and names its
 * reader by a dynamic import: the reader is loaded with its source's first
 * read, never for an agent a command does not read.
 */
export interface AgentRow<Name extends string = string> {
  /** The provenance name: the `--sources` word, and the prefix of the agent's session ids (`codex:<id>`). */
  readonly name: Name;
  /** How labels and notes name it (`Claude Code · <title>`). */
  readonly displayName: string;
  /**
   * The environment variables that move its folder, as the agent reads them;
   * without them it lives at its default under the home. A root inside
   * either place is refused to commands that write (`agentFolders`).
   */
  readonly movedBy: readonly string[];
  /** The folder read (`~/.claude/projects`, `~/.codex`, …), from the environment (never `process.env`), whether or not it exists. */
  home(environment: SourceEnvironment): string;
  /** The folder the agent owns: its home, or (`parent`) the folder that holds the home beside the agent's other files. */
  readonly owns: 'home' | 'parent';
  /**
   * What a mirror of another machine pulls for this agent (`sessref remote`),
   * relative to that machine's home at the agent's default place: the folders
   * and files its reader reads, never the credentials the agent keeps beside
   * them. A folder ends in `/`; a name may hold rsync's wildcards. An agent
   * that keeps credentials inside the very files its reader reads is not
   * mirrored at all: `withheld` says why.
   */
  readonly mirrored: readonly string[] | { readonly withheld: string };
  readonly reader: AgentReader;
}

/**
 * How an agent's sessions are read, loaded when first needed: transcript
 * files, through the format the generic transcript source lists, caches and
 * folds with; or a store of the agent's own, through a source over it.
 */
type AgentReader = { readonly transcripts: () => Promise<TranscriptFormat> } | { readonly store: (environment: SourceEnvironment, options: StoreOptions) => Promise<TranscriptSource> };

/** What a store's source is given besides its environment. */
interface StoreOptions {
  /** The agent's listing cache in sessref's cache directory, for what its source keeps between processes (see the README, "Listing cache"). */
  readonly listingCacheFile: string;
}

/** An agent's row, its name kept as a literal so the table's names form a precise union. */
export function defineAgent<const Name extends string>(row: AgentRow<Name>): AgentRow<Name> {
  return row;
}

/** The paths a mirror pulls for `row`: none for an agent whose sessions cannot leave its machine without a credential. */
export function mirroredPaths(row: Pick<AgentRow<string>, 'mirrored'>): readonly string[] {
  return 'withheld' in row.mirrored ? [] : row.mirrored;
}
