/**
 * Freeze `value` and everything it holds, in place, and return it: what a
 * caller hands out that no one may change (a plugin's messages, kept log
 * headers shared between listings).
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}
