import { statSync } from 'node:fs';
import { dirname } from 'node:path';
import { errorCode } from '@sessref/core';
import { sessrefCacheFile } from '@sessref/platform';
import { AGENT_NAMES, AGENTS, type AgentName } from './agents.js';
import type { AgentRow } from './agent-row.js';
import { SourceReadError } from './errors.js';
import { ownedBy } from './ids.js';
import type { SourceEnvironment } from './transcripts/format.js';
import type { TranscriptSource } from './transcripts/transcript-source.js';

export { AGENT_NAMES, isAgentName, type AgentName } from './agents.js';

/**
 * The source over an agent's sessions, as its row's reader says: transcript
 * files through the generic transcript source, or the agent's own store,
 * each with its listing cache in sessref's cache directory. Nothing is
 * loaded until its first read.
 */
function openSource(name: AgentName, environment: SourceEnvironment): TranscriptSource {
  const agent = AGENTS[name];
  const { reader } = agent;
  const cacheFile = (): string => listingCacheFile(environment, name, agent.home(environment));
  if ('store' in reader) return lazySource(name, () => reader.store(environment, { listingCacheFile: cacheFile() }));
  return lazySource(name, async () => {
    const [{ transcriptSource }, format] = await Promise.all([import('./transcripts/transcript-source.js'), reader.transcripts()]);
    return transcriptSource(format, { environment, listingCacheFile: cacheFile() });
  });
}

/**
 * A source whose code is loaded with its first read: a command never loads
 * the reader of an agent it does not read (every agent's home absent, or
 * `--sources` leaving it out). Routing needs no read: an agent's ids carry
 * its `<name>:` prefix.
 */
function lazySource(name: AgentName, load: () => Promise<TranscriptSource>): TranscriptSource {
  let loading: Promise<TranscriptSource> | undefined;
  let loaded: TranscriptSource | undefined;
  let closed = false;
  const source = () =>
    (loading ??= load().then((opened) => {
      loaded = opened;
      if (closed) opened.close();
      return opened;
    }));
  return {
    name,
    owns: ownedBy(name),
    listSessions: async (signal) => (await source()).listSessions(signal),
    readTitles: async (sessionIds, signal) => (await source()).readTitles(sessionIds, signal),
    readSurface: async (sessionId, signal) => (await source()).readSurface(sessionId, signal),
    changeStamps: async (signal) => (await source()).changeStamps(signal),
    problems: () => loaded?.problems() ?? [],
    close() {
      closed = true;
      loaded?.close();
    },
  };
}

/** One agent's listing cache: one file per agent and folder (`CLAUDE_CONFIG_DIR`, `CODEX_HOME` … each have their own). */
function listingCacheFile(environment: SourceEnvironment, agent: string, home: string): string {
  return sessrefCacheFile(environment.env, `listing-${agent}`, home, 'v1.json', environment.home);
}

/** A folder an agent owns: sessref reads sessions there in place and never writes into it. */
export interface AgentFolder {
  name: AgentName;
  displayName: string;
  folder: string;
}

/**
 * Every folder an agent owns, whether it exists or not: the one the
 * environment gives and its default, where it lives when none of the
 * variables that move it (`movedBy` in its row) is set (`$CLAUDE_CONFIG_DIR`
 * and `~/.claude`, `$CODEX_HOME` and `~/.codex`, …), in {@link AGENT_NAMES}
 * order. What a command that writes dsh sessions refuses as its root.
 */
export function agentFolders(environment: SourceEnvironment): AgentFolder[] {
  return AGENT_NAMES.flatMap((name) => {
    const moved = new Set<string>(AGENTS[name].movedBy);
    const defaults: SourceEnvironment = { home: environment.home, env: Object.fromEntries(Object.entries(environment.env).filter(([variable]) => !moved.has(variable))) };
    return [...new Set([ownFolder(name, environment), ownFolder(name, defaults)])].map((folder) => ({ name, displayName: AGENTS[name].displayName, folder }));
  });
}

/** An agent's own folder, as its row's `owns` says: its home, or the folder around it. */
function ownFolder(name: AgentName, environment: SourceEnvironment): string {
  const agent = AGENTS[name];
  const home = agent.home(environment);
  return agent.owns === 'parent' ? dirname(home) : home;
}

/** An agent's home that exists on this machine, and the source over it. */
export interface LocalSource {
  name: AgentName;
  displayName: string;
  /** The folder read (`~/.claude/projects`, `~/.codex`, …). */
  home: string;
  source: TranscriptSource;
}

/** An agent's folder that is there but cannot be looked into (a symbolic-link loop, closed to this user): that agent is skipped, the others read. */
export interface UnreadableHome {
  name: AgentName;
  displayName: string;
  home: string;
  error: SourceReadError;
}

/**
 * The sources of the agents among `names` whose homes exist on this machine
 * (a directory at the path their own environment variables or defaults
 * give), in {@link AGENT_NAMES} order. Nothing is read yet: each source
 * reads its home when it is first listed. Transcript sources keep their
 * listing in sessref's cache directory (see the README, "Listing cache").
 * A home that cannot even be checked is skipped, never failing the others;
 * {@link unreadableHomes} names those.
 */
export function localSources(environment: SourceEnvironment, names: readonly AgentName[] = AGENT_NAMES): LocalSource[] {
  return homes(environment, names).flatMap(({ name, agent, home, state }): LocalSource[] =>
    state === 'directory' ? [{ name, displayName: agent.displayName, home, source: openSource(name, environment) }] : [],
  );
}

/** The agents among `names` whose home {@link localSources} skipped because checking it failed, each with why: what a caller warns about. */
export function unreadableHomes(environment: SourceEnvironment, names: readonly AgentName[] = AGENT_NAMES): UnreadableHome[] {
  return homes(environment, names).flatMap(({ name, agent, home, state }): UnreadableHome[] =>
    state instanceof SourceReadError ? [{ name, displayName: agent.displayName, home, error: state }] : [],
  );
}

/** The agents among `names`, in table order, each with its home and whether that is a folder. */
function homes(environment: SourceEnvironment, names: readonly AgentName[]): { name: AgentName; agent: AgentRow; home: string; state: HomeState }[] {
  return AGENT_NAMES.filter((name) => names.includes(name)).map((name) => {
    const agent = AGENTS[name];
    const home = agent.home(environment);
    return { name, agent, home, state: homeState(home, agent.displayName) };
  });
}

type HomeState = 'directory' | 'absent' | SourceReadError;

/** Whether `path` is a folder; missing or not a folder is `absent`; any other failure (ELOOP, EACCES on a parent) is why it cannot be read. */
function homeState(path: string, displayName: string): HomeState {
  try {
    return statSync(path, { throwIfNoEntry: false })?.isDirectory() === true ? 'directory' : 'absent';
  } catch (error) {
    const code = errorCode(error);
    return new SourceReadError('SOURCE_SESSION_UNREADABLE', `${displayName} sessions skipped: ${path} cannot be read${code === undefined ? '' : ` (${code})`}`, { cause: error });
  }
}
