/**
 * Sessions of other machines, read from the mirrors `sessref remote sync`
 * pulls into sessref's cache directory (`remotes/<name>/home/`, laid out as
 * under that machine's home). Each mirror is read by the same readers as
 * this machine's homes; what changes is the provenance: every id, source
 * name and label carries the host's name, so two machines holding a session
 * with the same id stay apart, and a snapshot says which machine it came from.
 */
import { readdirSync, statSync, type Dirent } from 'node:fs';
import { join } from 'node:path';
import type { SessionHeaderLike, TitleReadResult } from '@sessref/core';
import { directoryProblem, sessrefCacheDirectory, sessrefRemotesDirectory } from '@sessref/platform';
import { localSources, type LocalSource } from './local.js';
import type { AgentName } from './agents.js';
import type { SourceEnvironment } from './transcripts/format.js';
import type { TranscriptSource } from './transcripts/transcript-source.js';

/**
 * A remote's name: lower-case letters, digits and inner hyphens, up to 32
 * characters, as a host's short name is spelled. It is a folder name in the
 * cache directory and the first part of the remote's session ids
 * (`devbox/claude-code:<id>`): no `/`, `:` or `.` can make either ambiguous.
 */
const REMOTE_NAME = /^[a-z0-9](?:[a-z0-9-]{0,30}[a-z0-9])?$/;

/** Whether `name` can name a remote (see {@link REMOTE_NAME}). */
export function isRemoteName(name: string): boolean {
  return REMOTE_NAME.test(name);
}

/** The folder the mirror of remote `name` is laid out in, as under that machine's home. */
export function mirrorHome(environment: SourceEnvironment, name: string): string {
  return join(sessrefRemotesDirectory(environment.env, environment.home), name, 'home');
}

/** An agent's sessions in the mirror of another machine: a source like a local one, named and labelled with its host. */
export interface MirroredSource extends Omit<LocalSource, 'name'> {
  /** `<host>/<agent>` (`devbox/claude-code`): the source's provenance name. */
  name: string;
  agent: AgentName;
  /** The remote's name (`devbox`). */
  host: string;
}

/**
 * The sources of the agents among `names` in every mirror found in
 * sessref's cache directory ({@link mirrors}: a remotes folder another user
 * owns or may write into is not read, as anyone could plant sessions there),
 * by remote name, then in table order. The readers keep their listing caches
 * in this machine's cache directory, never in the mirror, which the next
 * sync replaces.
 */
export function mirroredSources(environment: SourceEnvironment, names: readonly AgentName[]): MirroredSource[] {
  const cache = { SESSREF_CACHE_DIR: sessrefCacheDirectory(environment.env, environment.home) };
  return mirrors(environment).flatMap(({ host, home }) => localSources({ home, env: cache }, names).map((local) => mirroredSource(host, local)));
}

/**
 * Each mirror in sessref's cache directory, by remote name: the host and the
 * folder laid out as under its home. None from a remotes folder another user
 * owns or may write into; a folder whose name is no remote's (the remotes
 * file, a stray folder) is left out.
 */
export function mirrors(environment: SourceEnvironment): { host: string; home: string }[] {
  const remotes = sessrefRemotesDirectory(environment.env, environment.home);
  if (directoryProblem(remotes) !== undefined) return [];
  let entries: Dirent[];
  try {
    entries = readdirSync(remotes, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries
    .filter((entry) => entry.isDirectory() && isRemoteName(entry.name))
    .map((entry) => ({ host: entry.name, home: mirrorHome(environment, entry.name) }))
    .filter(({ home }) => statSync(home, { throwIfNoEntry: false })?.isDirectory() === true)
    .sort((a, b) => (a.host < b.host ? -1 : 1));
}

/** `local`, read from the mirror of `host`. */
function mirroredSource(host: string, local: LocalSource): MirroredSource {
  const source = hostedSource(host, local.source);
  return { name: source.name, agent: local.name, host, displayName: `${host} · ${local.displayName}`, home: local.home, source };
}

/**
 * `inner` as read from the mirror of `host`: its name `<host>/<name>`, its
 * ids prefixed `<host>/` (and routed back by that prefix), its titles, which
 * name the agent, `<host> · <title>`.
 */
export function hostedSource(host: string, inner: TranscriptSource): TranscriptSource {
  const prefix = `${host}/`;
  const hosted = (id: string): string => prefix + id;
  const unhosted = (id: string): string => id.slice(prefix.length);
  const header = (session: SessionHeaderLike): SessionHeaderLike => ({ ...session, id: hosted(session.id) });
  const title = (result: TitleReadResult): TitleReadResult =>
    result.status === 'rejected'
      ? { ...result, sessionId: hosted(result.sessionId) }
      : { ...result, sessionId: hosted(result.sessionId), title: result.title === undefined ? undefined : `${host} · ${result.title}` };
  return {
    name: `${host}/${inner.name}`,
    owns: (sessionId) => sessionId.startsWith(prefix) && inner.owns(unhosted(sessionId)),
    listSessions: async (signal) => (await inner.listSessions(signal)).map(header),
    readTitles: async (sessionIds, signal) => (await inner.readTitles(sessionIds.map(unhosted), signal)).map(title),
    readSurface: async (sessionId, signal) => {
      const surface = await inner.readSurface(unhosted(sessionId), signal);
      return { ...surface, session: header(surface.session) };
    },
    changeStamps: async (signal) => new Map([...(await inner.changeStamps(signal))].map(([id, stamp]) => [hosted(id), stamp])),
    problems: () => inner.problems().map((problem) => ({ ...problem, sessionId: hosted(problem.sessionId) })),
    close: () => inner.close(),
  };
}
