/**
 * The log generations sessref reads, and which dsh releases wrote each
 * (docs: ../shared/formats/dsh-generations.md, "Release → generation").
 */
import { SessionLogReadError } from './errors.js';

const KNOWN_GENERATIONS = [0, 1, 2, 3, 4] as const;

export type Generation = (typeof KNOWN_GENERATIONS)[number];

/** Who wrote each generation, for messages that must say which dsh a file came from. */
const WRITTEN_BY: Record<Generation, string> = {
  0: 'dsh 0.0.1 to 0.1.2',
  1: 'intermediate dsh builds only',
  2: 'dsh 0.1.3',
  3: 'dsh 0.1.5 to 0.1.6',
  4: 'dsh 0.1.7 and 0.2',
};

export function describeGeneration(generation: Generation): string {
  return `v${generation} (${WRITTEN_BY[generation]})`;
}

/** `version` as a generation sessref reads; a newer one is refused by name. */
export function knownGeneration(version: number, source: string): Generation {
  const known = KNOWN_GENERATIONS.find((generation) => generation === version);
  if (known !== undefined) return known;
  const reason = Number.isSafeInteger(version) && version > 0 ? `written by a dsh newer than sessref knows: v${version}` : `not a dsh log generation: ${version}`;
  throw new SessionLogReadError('SESSION_LOG_VERSION_UNKNOWN', `${source} ${reason}`);
}
