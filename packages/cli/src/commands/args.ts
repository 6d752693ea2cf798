import { usageError } from '../errors.js';

export function checkLimit(raw: string): number {
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value) || value < 1) throw usageError(`--limit must be a positive integer, got "${raw}"`);
  return value;
}

export function checkBytes(raw: string): number {
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value) || value < 1) throw usageError(`--max-bytes must be a positive integer, got "${raw}"`);
  return value;
}
