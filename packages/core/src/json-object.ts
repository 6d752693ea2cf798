/**
 * A value parsed from JSON that is an object with named fields (not null, not
 * an array): the first check before reading any field of untrusted JSON, such
 * as a request body or a cache file another process may have damaged.
 */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
