/**
 * The header line of each generation, checked as that generation's writer
 * wrote it, and turned into the header dsh 0.1.0-rc.8 restores a session
 * from. rc.8 accepts only `version: 0` (`Session.fromRestore`), so the header
 * handed on always says 0; the generation read lives beside it.
 */
import { isAbsolute } from 'node:path';
import { SESSION_FORMAT_VERSION, SessionId, type SessionHeader } from '@deepseek-ai/dsh-session';
import { SessionLogReadError } from './errors.js';
import { describeGeneration, knownGeneration, type Generation } from './generation.js';
import { isCount, isRecord, optional, type JsonRecord } from './json.js';

/** What a header line says, before the inherited cut of a v2+ log is known. */
export interface HeaderFields {
  id: string;
  createdAt: number;
  cwd?: string;
  parentSession?: string;
  origin?: 'subagent';
  delegationDepth: number;
  agentPreset?: string;
  /** v0/v1: the inherited event count the header stores. */
  seedLength?: number;
  /** v2+: whether the log's last inherited `session/end-seed` marks a cut. */
  isSeeded?: boolean;
}

/** v2+ headers: these keys and no others (dsh refuses any other). */
const MARKER_HEADER_KEYS = new Set(['type', 'version', 'id', 'createdAt', 'cwd', 'parentSession', 'isSeeded', 'origin', 'delegationDepth', 'agentPreset']);

/** Keys dsh retired from headers and refuses in every generation. */
const RETIRED_KEYS = ['sandboxMode', 'approvalPolicy'];

/**
 * The header of a log whose file name says `generation`. The version is
 * looked at first, as dsh does: a newer generation need not have today's
 * shape, and its reader must hear "newer", never "damaged".
 */
export function readHeader(value: unknown, generation: Generation): HeaderFields {
  if (!isRecord(value) || value['type'] !== 'session') throw invalid('the first line is not a session header');
  if (typeof value['version'] !== 'number') throw invalid('the header has no numeric version');
  const written = knownGeneration(value['version'], 'its header:');
  if (written !== generation) {
    throw new SessionLogReadError(
      'SESSION_LOG_VERSION_MISMATCH',
      `its file name identifies ${describeGeneration(generation)}, but its header identifies ${describeGeneration(written)}`,
    );
  }
  if (RETIRED_KEYS.some((key) => Object.hasOwn(value, key))) throw invalid('the header uses retired policy fields');
  return generation < 2 ? seedLengthHeader(value) : markerHeader(value);
}

/** v0/v1 store the inherited count as `seedLength`; rc.8 ignores unknown keys, and so does this. */
function seedLengthHeader(value: JsonRecord): HeaderFields {
  const seedLength = optional(value['seedLength'], isCount, () => invalid('seedLength must be a non-negative integer'));
  return { ...commonFields(value), ...(seedLength === undefined ? {} : { seedLength }) };
}

/** v2-v4 store only whether the session is seeded; the cut is an event. */
function markerHeader(value: JsonRecord): HeaderFields {
  const extra = Object.keys(value).find((key) => !MARKER_HEADER_KEYS.has(key));
  if (extra !== undefined) throw invalid(`the header has a key its generation does not allow: ${extra}`);
  if (typeof value['isSeeded'] !== 'boolean') throw invalid('isSeeded must be a boolean');
  return { ...commonFields(value), isSeeded: value['isSeeded'] };
}

function commonFields(value: JsonRecord): HeaderFields {
  const { id, createdAt, delegationDepth } = value;
  if (typeof id !== 'string' || id.length === 0) throw invalid('id must be a non-empty string');
  if (!isCount(createdAt)) throw invalid('createdAt must be a non-negative integer');
  if (!isCount(delegationDepth)) throw invalid('delegationDepth must be a non-negative integer');
  const cwd = optional(value['cwd'], isAbsolutePath, () => invalid('cwd must be an absolute path'));
  const parentSession = optional(value['parentSession'], isString, () => invalid('parentSession must be a string'));
  const origin = optional(value['origin'], isSubagent, () => invalid('origin must be "subagent"'));
  const agentPreset = optional(value['agentPreset'], isString, () => invalid('agentPreset must be a string'));
  return {
    id,
    createdAt,
    ...(cwd === undefined ? {} : { cwd }),
    ...(parentSession === undefined ? {} : { parentSession }),
    ...(origin === undefined ? {} : { origin }),
    delegationDepth,
    ...(agentPreset === undefined ? {} : { agentPreset }),
  };
}

/** The rc.8 header, in the key order rc.8's own header parser gives it. */
export function sessionHeaderOf(fields: HeaderFields, seedLength: number | undefined): SessionHeader {
  return {
    version: SESSION_FORMAT_VERSION,
    id: SessionId(fields.id),
    createdAt: fields.createdAt,
    ...(fields.cwd === undefined ? {} : { cwd: fields.cwd }),
    ...(fields.parentSession === undefined ? {} : { parentSession: SessionId(fields.parentSession) }),
    ...(seedLength === undefined ? {} : { seedLength }),
    ...(fields.origin === undefined ? {} : { origin: fields.origin }),
    delegationDepth: fields.delegationDepth,
    ...(fields.agentPreset === undefined ? {} : { agentPreset: fields.agentPreset }),
  };
}

function isString(value: unknown): value is string {
  return typeof value === 'string';
}

function isAbsolutePath(value: unknown): value is string {
  return typeof value === 'string' && isAbsolute(value);
}

function isSubagent(value: unknown): value is 'subagent' {
  return value === 'subagent';
}

function invalid(detail: string): SessionLogReadError {
  return new SessionLogReadError('SESSION_LOG_HEADER_INVALID', `invalid session header: ${detail}`);
}
