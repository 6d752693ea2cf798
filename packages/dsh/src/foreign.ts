import { statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { SessionReferenceError, combineSources, redactSecrets, type CombinedStorage, type SessionReferenceStorage, type SourceFailure, type TitleReadResult } from '@sessref/core';
import {
  AGENT_NAMES,
  hostedSource,
  isAgentName,
  localSources,
  mirroredSources,
  mirrors,
  unreadableHomes,
  type AgentName,
  type LocalSource,
  type SourceEnvironment,
  type UnreadableHome,
} from '@sessref/sources';
import { RootLogs, assertSupportedRoot } from './reading/index.js';
import { rootSource } from './reading/root-source.js';

/** The provenance name of the host's own sessions, beside the agents' names (`claude-code`, …). */
export const OWN_SOURCE = 'dsh';

/** The `sources` value that offers every agent sessref knows (those whose home exists), naming none. */
export const ALL_SOURCES = 'all';

/** Another agent's sessions a service reads: in its home on this machine, or (with `host`) in the mirror of another machine's. */
interface ForeignSource extends Omit<LocalSource, 'name'> {
  /** The source's provenance name: the agent's (`claude-code`), or `<host>/<agent>` for a mirror. */
  name: string;
  /** The remote the sessions were mirrored from; absent for this machine's. */
  host?: string;
}

/** Where dsh keeps its sessions on a machine by default (`~/.dsh/sessions`, `$DSH_HOME` unset), relative to its home: what a mirror pulls of dsh. */
export const DSH_MIRRORED = '.dsh/sessions/';

/** The storage discovery and snapshots read through, and the other agents' homes it reads. */
export interface AssembledStorage {
  storage: CombinedStorage;
  /** The foreign sources found on this machine, in order, then those in the mirrors of other machines. */
  foreign: readonly ForeignSource[];
  /** The agents' homes skipped because they cannot even be checked (a link loop, closed to this user), each with why. */
  skipped: readonly UnreadableHome[];
  /** Foreign sources whose last listing failed (their sessions were left out). */
  failures(): readonly SourceFailure[];
  /**
   * With any foreign source: `storage` split by provenance, the host's
   * sessions (`own`) and the other agents' (`foreign`), each listing its part
   * of `storage`'s listing and reading through it. Discovery ranks each group
   * apart so the host's sessions always come first.
   */
  groups?: { own: SessionReferenceStorage; foreign: SessionReferenceStorage };
}

/**
 * The host's own storage, then the sessions of the agents `sources` names
 * (`'all'`: every agent sessref knows) whose homes exist on this machine
 * (see `@sessref/sources`), and those agents' sessions in the mirrors of
 * other machines `sessref remote sync` keeps in sessref's cache directory,
 * then the dsh roots of those mirrors ({@link mirroredDshRoots}: with any
 * agent, as the agents' mirrors are, or with `mirroredDshRoots` whatever
 * `sources` names), each id, source and label naming its host. Without any,
 * reads go to the host's storage untouched, so a default install answers
 * exactly as the official plugin. An unknown agent name is an invalid
 * configuration, refused before anything is read.
 *
 * Another agent's titles come with their credentials redacted, as its
 * snapshots do: its title is often its first prompt, and a title names the
 * session in listings, the picker, labels and the `@label` a message is
 * rewritten to. The host's own titles are redacted with `redactOwnTitles`
 * (the `redactSecrets` key), never by default; a mirrored dsh root's are
 * another machine's, redacted as the agents' are.
 */
export function assembleStorage(
  own: SessionReferenceStorage,
  sources: unknown,
  options: { redactOwnTitles?: boolean; mirroredDshRoots?: boolean } = {},
  env: NodeJS.ProcessEnv = process.env,
): AssembledStorage {
  const environment = { home: env['HOME'] || homedir(), env };
  const agents = checkSources(sources);
  const dshRoots = options.mirroredDshRoots === true || agents.length > 0 ? mirroredDshRoots(environment) : [];
  const found: ForeignSource[] = [...localSources(environment, agents), ...mirroredSources(environment, agents), ...dshRoots];
  const foreign = found.map((local) => ({ ...local, source: withRedactedTitles(local.source) }));
  const readOwnTitles: SessionReferenceStorage['readTitles'] =
    options.redactOwnTitles === true ? async (ids, signal) => (await own.readTitles(ids, signal)).map(redactedTitle) : (ids, signal) => own.readTitles(ids, signal);
  const skipped = unreadableHomes(environment, agents);
  let failures: SourceFailure[] = [];
  const combined = combineSources(
    {
      listSessions: (signal) => {
        failures = [];
        return own.listSessions(signal);
      },
      readTitles: readOwnTitles,
      readSurface: (id, signal) => own.readSurface(id, signal),
    },
    foreign.map((local) => local.source),
    { primaryName: OWN_SOURCE, onFailure: (failure) => failures.push(failure) },
  );
  if (foreign.length === 0) return { storage: { ...own, readTitles: readOwnTitles, sourceOf: () => OWN_SOURCE, listForeign: () => Promise.resolve([]) }, foreign, skipped, failures: () => failures };
  const part = (ownSide: boolean): SessionReferenceStorage => ({
    listSessions: async (signal) => (await combined.listSessions(signal)).filter((header) => (combined.sourceOf(header.id) === OWN_SOURCE) === ownSide),
    readTitles: (ids, signal) => combined.readTitles(ids, signal),
    readSurface: (id, signal) => combined.readSurface(id, signal),
  });
  // A listing of the foreign sources alone is a listing too: the failures said are its own.
  const storage: CombinedStorage = {
    ...combined,
    listForeign: (ids, signal) => {
      failures = [];
      return combined.listForeign(ids, signal);
    },
  };
  return { storage, foreign, skipped, failures: () => failures, groups: { own: part(true), foreign: part(false) } };
}

/**
 * dsh's sessions of other machines: a source per mirror that holds a dsh
 * root, by remote name, read as a root no host owns is ({@link rootSource})
 * and named by its host like the agents' mirrored sessions (`devbox/dsh:<id>`,
 * `devbox · dsh · <title>`). Never written: a remote session is no target.
 */
function mirroredDshRoots(environment: SourceEnvironment): ForeignSource[] {
  return mirrors(environment).flatMap(({ host, home }) => {
    const root = join(home, DSH_MIRRORED);
    if (statSync(root, { throwIfNoEntry: false })?.isDirectory() !== true) return [];
    try {
      assertSupportedRoot(root);
    } catch {
      // A root in a shape sessref does not read (flat, uncompressed) lists nothing, as the agents' sources skip what they cannot read.
      return [];
    }
    return [{ name: `${host}/${OWN_SOURCE}`, displayName: `${host} · dsh`, home: root, host, source: hostedSource(host, rootSource(new RootLogs(root), OWN_SOURCE)) }];
  });
}

function checkSources(sources: unknown): readonly AgentName[] {
  if (sources === undefined) return [];
  if (sources === ALL_SOURCES) return AGENT_NAMES;
  if (!Array.isArray(sources) || !sources.every((name): name is string => typeof name === 'string' && isAgentName(name))) {
    throw new SessionReferenceError(
      `invalid session reference configuration: sources must be "${ALL_SOURCES}" or a list of ${AGENT_NAMES.join(', ')}, got ${JSON.stringify(sources)}`,
      'SESSION_REFERENCE_INVALID_CONFIG',
    );
  }
  return sources.filter(isAgentName);
}

/** A source (a plain object, as `localSources` makes them) whose titles have their credentials replaced by `[redacted: <kind>]` (see `redactSecrets`). */
function withRedactedTitles<Storage extends SessionReferenceStorage>(storage: Storage): Storage {
  return { ...storage, readTitles: async (sessionIds, signal) => (await storage.readTitles(sessionIds, signal)).map(redactedTitle) };
}

/** Written field by field, not spread: a listing redacts every session's title, and a fresh process runs this cold. */
function redactedTitle(result: TitleReadResult): TitleReadResult {
  if (result.status !== 'fulfilled') return result;
  const { sessionId, title, displayTitle } = result;
  const redacted = title === undefined ? undefined : redactSecrets(title).text;
  return displayTitle === undefined ? { sessionId, status: 'fulfilled', title: redacted } : { sessionId, status: 'fulfilled', title: redacted, displayTitle: redactSecrets(displayTitle).text };
}
