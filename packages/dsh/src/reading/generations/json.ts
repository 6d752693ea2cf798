/** Guards for the untrusted JSON a log line parses to. */

export type JsonRecord = Record<string, unknown>;

export function isRecord(value: unknown): value is JsonRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A non-negative safe integer: a seq, a count, epoch milliseconds. */
export function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 && !Object.is(value, -0);
}

export function isNonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0;
}

/** `value` when it is absent or passes `guard`, else `invalid` is thrown. */
export function optional<T>(value: unknown, guard: (value: unknown) => value is T, invalid: () => Error): T | undefined {
  if (value === undefined) return undefined;
  if (!guard(value)) throw invalid();
  return value;
}
