/** Which places a command reads sessions from (`--sources LIST`), and how it names one session. */
import { AGENT_NAMES, isAgentName, isRemoteName, localSources, mirroredSources, nativeSessionId, unreadableHomes, type AgentName, type UnreadableHome } from '@sessref/sources';
import { homedir } from 'node:os';
import { SESSION_REFERENCE_SCHEME, decodeSessionReferenceUri, parseSessionReferenceText } from '@sessref/core';
import { OWN_SOURCE } from '@sessref/dsh/service';
import { usageError } from '../failure.js';


/** The places a run reads: the root's dsh sessions or not, and which agents' homes. */
export interface SourceSelection {
  readonly dsh: boolean;
  readonly agents: readonly AgentName[];
}

/** Every place, as a run without `--sources` reads. */
const EVERY_SOURCE: SourceSelection = { dsh: true, agents: AGENT_NAMES };

/** `--sources dsh,claude-code,…` (`dsh` and the agents' names), comma-separated, any order; every source when absent. */
export function parseSources(value: string | undefined): SourceSelection {
  if (value === undefined) return EVERY_SOURCE;
  const names = value.split(',').map((name) => name.trim());
  const unknown = names.filter((name) => name !== OWN_SOURCE && !isAgentName(name));
  if (unknown.length > 0 || names.length === 0) {
    throw usageError(`--sources takes a comma-separated list of ${[OWN_SOURCE, ...AGENT_NAMES].join(', ')}; got "${value}"`);
  }
  return { dsh: names.includes(OWN_SOURCE), agents: names.filter(isAgentName) };
}

/** The agents' homes a run with `selection` reads: those that exist on this machine, then those in the mirrors of other machines (`sessref remote`). */
export function homesRead(selection: SourceSelection, env: NodeJS.ProcessEnv): { name: string; displayName: string; home: string }[] {
  const environment = { home: env.HOME || homedir(), env };
  return [...localSources(environment, selection.agents), ...mirroredSources(environment, selection.agents)];
}

/** The agents' homes a run with `selection` skips because they cannot even be checked (a link loop, closed to this user), each with why. */
export function homesSkipped(selection: SourceSelection, env: NodeJS.ProcessEnv): UnreadableHome[] {
  return unreadableHomes({ home: env.HOME || homedir(), env }, selection.agents);
}

/** Whether sessions of `source` are dsh's, which `--sources dsh` names: the root's own, and those of a dsh root mirrored from another machine (`devbox/dsh`). */
export function isDshSource(source: string): boolean {
  return source === OWN_SOURCE || source.endsWith(`/${OWN_SOURCE}`);
}

/** Whether `sessionId` is spelled as another agent's session (`claude-code:…`) or a session of another machine (`devbox/…`). */
export function isForeignId(sessionId: string): boolean {
  const host = /^([^/]+)\//.exec(sessionId)?.[1];
  return (host !== undefined && isRemoteName(host)) || AGENT_NAMES.some((name) => nativeSessionId(name, sessionId) !== undefined);
}

/**
 * A session named on the command line: its id, its canonical mention as
 * `list` and `mention` print it (`@[label](dsh-session:…)`), or the bare
 * `dsh-session:` URI. Anything else is taken as an id.
 */
export function sessionIdOf(value: string): string {
  if (value.startsWith(SESSION_REFERENCE_SCHEME)) return decodeSessionReferenceUri(value);
  if (!value.startsWith('@[')) return value;
  const { text, references } = parseSessionReferenceText(value);
  // Exactly one mention and nothing around it: otherwise the value is an id that happens to start with `@[`.
  return references.length === 1 && text === `@${references[0]!.label ?? references[0]!.sessionId}` ? references[0]!.sessionId : value;
}
