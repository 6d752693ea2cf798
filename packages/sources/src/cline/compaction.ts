import { nodeCrypto } from '@sessref/platform';
import { asObject, asString } from '../json-lines.js';
import { displayUserInput } from './user-input.js';

type JsonRecord = Readonly<Record<string, unknown>>;

/** The first line of the prefix hash, `sourcePrefixHash`'s version ("v2": without ids and times). */
const HASH_VERSION = 'cline-session-compaction-source-v2';

/**
 * The messages Cline continues from (`projectSessionCompactionState`,
 * `sdk/packages/core/src/session/models/session-compaction.ts`): with a
 * compaction sidecar that parses (`SessionCompactionStateSchema`), whose
 * `source_message_count` is at most the transcript's length and whose
 * `source_prefix_hash` is the hash of that many first messages (or, for a
 * sidecar without one, whose `source_last_message_key` names the last of
 * them), the sidecar's messages followed by the transcript's after them;
 * otherwise the transcript's messages as they are.
 */
export function projectedMessages(source: readonly unknown[], sidecar: JsonRecord | undefined): readonly unknown[] {
  const state = sidecar === undefined ? undefined : compactionState(sidecar);
  if (state === undefined || state.count > source.length) return source;
  const matches = state.prefixHash !== undefined ? prefixHash(source, state.count) === state.prefixHash : state.count > 0 && state.lastKey !== undefined && boundaryKey(asObject(source[state.count - 1]) ?? {}) === state.lastKey;
  return matches ? [...state.messages, ...source.slice(state.count)] : source;
}

interface CompactionState {
  count: number;
  prefixHash: string | undefined;
  lastKey: string | undefined;
  messages: readonly unknown[];
}

/** The sidecar as `SessionCompactionStateSchema` admits it (version 1, a count, messages of role user or assistant with string or list content), else none. */
function compactionState(sidecar: JsonRecord): CompactionState | undefined {
  const { version, updated_at: updatedAt, source_message_count: count, messages } = sidecar;
  if (version !== 1 || typeof updatedAt !== 'string' || typeof count !== 'number' || !Number.isInteger(count) || count < 0 || !Array.isArray(messages)) return undefined;
  if (!messages.every(isMessage)) return undefined;
  const nonEmpty = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);
  return { count, prefixHash: nonEmpty(sidecar['source_prefix_hash']), lastKey: nonEmpty(sidecar['source_last_message_key']), messages };
}

function isMessage(value: unknown): boolean {
  const message = asObject(value);
  return (message?.['role'] === 'user' || message?.['role'] === 'assistant') && (typeof message['content'] === 'string' || Array.isArray(message['content']));
}

/** `sourcePrefixHash`: sha256 over the version line, the count, and each message's hash input as JSON on its own line. */
function prefixHash(source: readonly unknown[], count: number): string {
  const hash = nodeCrypto().createHash('sha256');
  hash.update(`${HASH_VERSION}\n${count}\n`);
  for (const message of source.slice(0, count)) hash.update(`${JSON.stringify(hashInput(asObject(message) ?? {}))}\n`);
  return `sha256:${hash.digest('hex')}`;
}

/** `sourceMessageHashInput`: what was said (role, content with the user's input normalised, durable metadata), never the id or time. */
function hashInput(message: JsonRecord): unknown[] {
  const normalized = normalizedForHash(message);
  return ['role', 'content', 'agent', 'sessionId', 'metadata', 'modelInfo', 'metrics'].map((key) => [key, normalized[key] ?? null]);
}

/** `messageBoundaryKey`: the message's id, else its role and time, else its role and content. */
function boundaryKey(message: JsonRecord): string {
  const normalized = normalizedForHash(message);
  const id = asString(normalized['id'])?.trim();
  if (id) return `id:${id}`;
  const ts = normalized['ts'];
  if (typeof ts === 'number' && Number.isFinite(ts)) return `ts:${String(normalized['role'])}:${ts}`;
  return `content:${String(normalized['role'])}:${JSON.stringify(normalized['content'])}`;
}

/** `normalizeMessageForSourceHash`: a user message's text as `formatDisplayUserInput` gives it. */
function normalizedForHash(message: JsonRecord): JsonRecord {
  if (message['role'] !== 'user') return message;
  const content = message['content'];
  if (typeof content === 'string') return { ...message, content: displayUserInput(content) };
  if (!Array.isArray(content)) return message;
  return { ...message, content: content.map(normalizedPart) };
}

function normalizedPart(part: unknown): unknown {
  const block = asObject(part);
  return block?.['type'] === 'text' ? { ...block, text: displayUserInput(asString(block['text']) ?? '') } : part;
}
