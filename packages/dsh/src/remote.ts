/**
 * Client face of `@sessref/dsh`: the Remote contribution a browser assembly
 * mounts with `ctx.remote.$mount(TYPERT_REMOTE)` to call the resolver's
 * `candidates` and `search` methods through the dsh API gateway.
 *
 * The same invocation descriptor is the host's strict definition (see
 * `@sessref/dsh/typert`), so both ends validate one wire contract:
 *
 * - endpoint `sessionReferenceResolver/candidates`, served by the
 *   `remoteExportCandidates` member of `ctx.sessionReferenceResolver`;
 * - `agentId`: a string the host turns into a live `Agent` through the
 *   `agent` lookup (dsh-agent registers it); a caller inside an agent's
 *   Context may leave it out, the `agent` scope supplies it;
 * - `query`: a string, required;
 * - cancellation travels beside the arguments, never inside them;
 * - the result: an array of `{ mention, sessionId, label, cwd?, createdAt }`
 *   (rc.8), or of `{ mention, sessionId, label, displayTitle?, cwd?,
 *   sameWorkspace, createdAt }` for a dsh 0.1.7 / 0.2 client, whose bundled
 *   schema requires `sameWorkspace` (see {@link remoteContribution}).
 *
 * and `sessionReferenceResolver/search` (content discovery, served by
 * `remoteExportSearch`), with the same `agentId` and `query` fields and
 * cancellation, answering an array of `{ mention, sessionId, label, cwd?,
 * createdAt, seq, role, checkpoint, snippet, ranges }`.
 *
 * This module only imports `zod` at run time, so it is safe in a browser.
 * @module @sessref/dsh/remote
 */
import { z } from 'zod';
import type { InvocationDescriptor, RemoteResult, TypertRemoteContribution } from '@deepseek-ai/dsh-typert-protocol';
import type { SessionId } from '@deepseek-ai/dsh-session/types';
import type { HostContract } from './contract.js';
import type { SessionReferenceContentHit, SessionReferenceMentionCandidate } from './types.js';

declare module '@deepseek-ai/dsh-typert-protocol' {
  // Names follow the dsh generator's convention (the namespace's UTF-8 bytes
  // in hex), so consumers index the maps below exactly as for generated faces.
  interface TypertRemoteNamespace$73657373696f6e5265666572656e63655265736f6c766572 {
    candidates: (agentId: SessionId, query: string, signal?: AbortSignal) => Promise<RemoteResult<SessionReferenceMentionCandidate[]>>;
    search: (agentId: SessionId, query: string, signal?: AbortSignal) => Promise<RemoteResult<SessionReferenceContentHit[]>>;
  }
  interface TypertRemoteMap {
    'sessionReferenceResolver/candidates': (
      agentId: SessionId,
      query: string,
      signal?: AbortSignal,
    ) => Promise<RemoteResult<SessionReferenceMentionCandidate[]>>;
    'sessionReferenceResolver/search': (
      agentId: SessionId,
      query: string,
      signal?: AbortSignal,
    ) => Promise<RemoteResult<SessionReferenceContentHit[]>>;
  }
  interface TypertRemoteNamespaceMap {
    sessionReferenceResolver: TypertRemoteNamespace$73657373696f6e5265666572656e63655265736f6c766572;
  }
  interface TypertRemoteScopeMap {
    'agent:sessionReferenceResolver/candidates': (
      query: string,
      signal?: AbortSignal,
    ) => Promise<RemoteResult<SessionReferenceMentionCandidate[]>>;
    'agent:sessionReferenceResolver/search': (query: string, signal?: AbortSignal) => Promise<RemoteResult<SessionReferenceContentHit[]>>;
  }
}

/** The npm package that owns the descriptors below. */
export const PACKAGE_NAME = '@sessref/dsh';

/** The wire type symbol dsh-agent declares for its `agent` lookup; a strict codec must name it exactly. */
const SESSION_ID_SYMBOL = '@deepseek-ai/dsh-session/types#SessionId';

const SERVICE = 'sessionReferenceResolver';
const METHOD = 'candidates';
const SEARCH_METHOD = 'search';

/** A branded dsh `SessionId`: any string on the wire (the brand has no run-time shape). */
const sessionId = () => z.intersection(z.string(), z.unknown());

/**
 * One candidate as it crosses the boundary. Unknown keys are dropped and the
 * keys come out in this order: `mention`, `sessionId`, `label`, `cwd`,
 * `createdAt` (the order of the official plugin's generated schema).
 */
const candidateSchema = z.object({
  mention: z.string(),
  sessionId: sessionId(),
  label: z.string(),
  cwd: z.string().optional(),
  createdAt: z.number(),
});

/**
 * One candidate of the 0.1.7 / 0.2 contract, keys in the order its generated
 * schema lists them (the mention, then the candidate's fields as declared):
 * `sameWorkspace` is required, so a host that strips it fails the client's
 * check for the whole answer; `displayTitle` is optional there.
 */
const workspaceCandidateSchema = z.object({
  mention: z.string(),
  sessionId: sessionId(),
  label: z.string(),
  displayTitle: z.string().optional(),
  cwd: z.string().optional(),
  sameWorkspace: z.boolean(),
  createdAt: z.number(),
});

/**
 * A Remote method of the resolver that takes `(agent, query, signal)`: the
 * agent looked up from the wire `agentId`, the query a strict string, the
 * result checked against `result`. Both methods share this wire shape.
 */
function agentQueryMethod(method: string, implementation: string, result: z.ZodType): InvocationDescriptor {
  const endpoint = `${SERVICE}/${method}`;
  return {
    id: `${PACKAGE_NAME}#${endpoint}`,
    service: SERVICE,
    namespace: SERVICE,
    method,
    implementation,
    invocation: { kind: 'direct' },
    scope: { context: 'agent', wire: 'agentId' },
    parameters: [
      {
        name: 'agent',
        wire: 'agentId',
        source: 'lookup',
        lookup: 'agent',
        codec: { mode: 'strict', typeSymbol: SESSION_ID_SYMBOL, schema: sessionId() },
      },
      {
        name: 'query',
        wire: 'query',
        source: 'json',
        codec: { mode: 'strict', typeSymbol: `${PACKAGE_NAME}#${endpoint}:query`, schema: z.string() },
      },
    ],
    cancellation: { parameter: 'signal' },
    result: { mode: 'strict', typeSymbol: `${PACKAGE_NAME}#${endpoint}:result`, schema: result },
  };
}

/** `sessionReferenceResolver/candidates` of a host speaking `contract`, as both the host and a client read it. */
export function candidatesDescriptor(contract: HostContract): InvocationDescriptor {
  return agentQueryMethod(METHOD, 'remoteExportCandidates', z.array(contract === 'rc.8' ? candidateSchema : workspaceCandidateSchema));
}

/** `sessionReferenceResolver/candidates` as an rc.8 host serves it and an rc.8 client reads it. */
export const CANDIDATES_DESCRIPTOR: InvocationDescriptor = candidatesDescriptor('rc.8');

/**
 * One content hit as it crosses the boundary: the candidate's keys, then the
 * matching message's `seq`, `role` and `checkpoint` flag, the bounded
 * plain-text `snippet` and the `ranges` of the query in it (UTF-16
 * `[start, end)`), so a client marks the match up without matching text
 * itself. Unknown keys are dropped.
 */
const contentHitSchema = candidateSchema.extend({
  seq: z.number().int().nonnegative(),
  role: z.enum(['user', 'assistant']),
  checkpoint: z.boolean(),
  snippet: z.string(),
  ranges: z.array(z.tuple([z.number().int().nonnegative(), z.number().int().nonnegative()])),
});

/** `sessionReferenceResolver/search`: content discovery, strict on the same fields as `candidates`. */
export const SEARCH_DESCRIPTOR: InvocationDescriptor = agentQueryMethod(SEARCH_METHOD, 'remoteExportSearch', z.array(contentHitSchema));

/**
 * The contribution for a client of a host speaking `contract`. A browser
 * cannot read the host's package versions, so its assembly picks the one for
 * the dsh release it was built with.
 */
export function remoteContribution(contract: HostContract): TypertRemoteContribution {
  return { package: PACKAGE_NAME, descriptors: [contract === 'rc.8' ? CANDIDATES_DESCRIPTOR : candidatesDescriptor(contract), SEARCH_DESCRIPTOR] };
}

/** The contribution to mount on the `ctx.remote` of an rc.8 client. */
export const TYPERT_REMOTE: TypertRemoteContribution = remoteContribution('rc.8');

export default TYPERT_REMOTE;
