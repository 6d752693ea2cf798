/**
 * Host face of `@sessref/dsh` for the dsh Typert runtime.
 *
 * The dsh Typert loader imports this module for a Loader entry named
 * `@sessref/dsh` (it reads the `./typert` export of the package's
 * `package.json`), checks `TYPERT` and registers it with `ctx.typert`. From
 * then on the API gateway serves `sessionReferenceResolver/candidates` and
 * `sessionReferenceResolver/search` from this strict definition: it validates
 * `agentId` and `query` before the resolver runs and validates the candidates
 * (or content hits) on the way out, and it never falls back to reading the
 * method's source again.
 *
 * Written by hand in the shape the dsh generator emits (a package, a face,
 * named schemas, a reflection model and the invocations); the invocations are
 * the ones the client face exports, so host and client agree by construction.
 * The candidates' result schema is the linked dsh release's (see
 * `./contract.ts`): a 0.1.7 / 0.2 host passes `displayTitle` and
 * `sameWorkspace` through, which the rc.8 schema would strip.
 * Declared `unknown`, like generated faces: the loader narrows it.
 * @module @sessref/dsh/typert
 */
import type { TypertContribution, TypertServiceModel } from '@deepseek-ai/dsh-typert-registry/types';
import { linkedContract, type HostContract } from './contract.js';
import { PACKAGE_NAME, remoteContribution } from './remote.js';

/** Reflection of the service: its public members and the data types they name. */
const service: TypertServiceModel = {
  description: 'Reads other sessions through ctx.sessionQuery and turns mentions of them into bounded, untrusted snapshot context.',
  summary: 'Cross-session references: discovery and exact-read snapshots.',
  tags: [],
  key: 'sessionReferenceResolver',
  exportName: 'SessionReferenceResolver',
  members: [
    {
      kind: 'getter',
      name: 'config',
      signature: 'get config(): { maxReferences: number; candidateLimit: number; maxReferenceBytes: number }',
      summary: 'The validated configuration in effect.',
    },
    {
      kind: 'method',
      name: 'listCandidates',
      signature:
        'listCandidates(agent: Agent, query?: string, limit?: number, signal?: AbortSignal): Promise<SessionReferenceCandidate[]>',
      summary: 'Sessions other than the agent\'s, ranked same cwd, no cwd, other cwd; labelled by latest title, else id.',
    },
    {
      kind: 'method',
      name: 'remoteExportCandidates',
      signature:
        "@Remote('candidates') remoteExportCandidates(agent: Agent, query: string, signal: AbortSignal): Promise<SessionReferenceMentionCandidate[]>",
      summary: 'The Remote `candidates` method: listCandidates under the configured limit, each with its canonical mention.',
    },
    {
      kind: 'getter',
      name: 'hostContract',
      signature: "get hostContract(): 'rc.8' | '0.1.7'",
      summary: 'The session-reference contract the resolver answers in: the hostContract key, else the linked dsh release\'s.',
    },
    {
      kind: 'getter',
      name: 'contentSearch',
      signature: 'get contentSearch(): boolean',
      summary: 'Whether content discovery is on (the contentSearch configuration key).',
    },
    {
      kind: 'method',
      name: 'searchContent',
      signature:
        'searchContent(agent: Agent | undefined, query: string, limit?: number, signal?: AbortSignal): Promise<SessionReferenceContentHit[]>',
      summary: 'Sessions whose carried conversation (user, assistant and checkpoint text of the current surface) contains the query, from sessref\'s own index.',
    },
    {
      kind: 'method',
      name: 'refreshContentIndex',
      signature: 'refreshContentIndex(signal?: AbortSignal, onProgress?: (progress: RefreshProgress) => void): Promise<RefreshReport>',
      summary: 'Brings the content index up to date now, re-reading only the sessions whose stamp changed (every search does so first).',
    },
    {
      kind: 'method',
      name: 'remoteExportSearch',
      signature: "@Remote('search') remoteExportSearch(agent: Agent, query: string, signal: AbortSignal): Promise<SessionReferenceContentHit[]>",
      summary: 'The Remote `search` method: searchContent under the configured candidate limit.',
    },
    {
      kind: 'method',
      name: 'prepare',
      signature:
        'prepare(agent: Agent, content: ContentBlock[], references: SessionReferenceInput[], signal?: AbortSignal): Promise<PreparedReferencedMessage>',
      summary: 'Readable content plus, when anything is cited, one frozen context message holding every distinct snapshot.',
    },
  ],
  types: [
    {
      name: 'PreparedReferencedMessage',
      declaration: 'export interface PreparedReferencedMessage {\n    content: ContentBlock[];\n    additionalContext?: UserMessage;\n}',
    },
    {
      name: 'SessionReferenceCandidate',
      declaration:
        'export interface SessionReferenceCandidate {\n    sessionId: string;\n    label: string;\n    displayTitle?: string;\n    cwd?: string;\n    sameWorkspace?: boolean;\n    createdAt: number;\n}',
    },
    {
      name: 'SessionReferenceContentHit',
      declaration:
        "export interface SessionReferenceContentHit extends SessionReferenceMentionCandidate {\n    seq: number;\n    role: 'user' | 'assistant';\n    checkpoint: boolean;\n    snippet: string;\n    ranges: TextRange[];\n}",
    },
    {
      name: 'RefreshProgress',
      declaration: 'export interface RefreshProgress {\n    indexed: number;\n    total: number;\n    elapsedMs: number;\n    remainingMs: number | undefined;\n}',
    },
    {
      name: 'RefreshReport',
      declaration:
        'export interface RefreshReport {\n    sessions: number;\n    indexed: number;\n    removed: number;\n    skipped: { source: string; sessionId: string; reason: unknown }[];\n    failedSources: { source: string; reason: unknown }[];\n}',
    },
    {
      name: 'TextRange',
      declaration: 'export type TextRange = readonly [start: number, end: number];',
    },
    {
      name: 'SessionReferenceInput',
      declaration: 'export interface SessionReferenceInput {\n    sessionId: string;\n    label?: string;\n}',
    },
    {
      name: 'SessionReferenceMentionCandidate',
      declaration: 'export interface SessionReferenceMentionCandidate extends SessionReferenceCandidate {\n    mention: string;\n}',
    },
  ],
};

/** The host manifest for a host speaking `contract`: the service's reflection and the client face's invocations. */
export function hostContribution(contract: HostContract): TypertContribution {
  return {
    package: PACKAGE_NAME,
    face: 'host',
    schemas: [],
    model: { services: [service], events: [], objects: [] },
    invocations: remoteContribution(contract).descriptors,
  };
}

/** The host manifest the Typert loader registers, for the linked dsh release. */
export const TYPERT: unknown = hostContribution(linkedContract());
