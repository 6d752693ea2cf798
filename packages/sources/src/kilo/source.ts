import { opencodeFamilySource, type OpencodeFamilyMember, type OpencodeSourceOptions } from '../opencode/source.js';
import { AGENTS } from '../agents.js';

/**
 * Kilo (the Kilo Code CLI) is a fork of opencode that keeps opencode's store
 * under its own names: `kilo.db` and `kilo-<channel>.db` in its data folder,
 * and `KILO_DB` naming another. Everything else (tables, records, the rule
 * for the current conversation) is opencode's, read by opencode's reader.
 */
const KILO: OpencodeFamilyMember = { agent: AGENTS.kilo, databaseBase: 'kilo', databaseVariable: 'KILO_DB' };

/** A source over Kilo's store, read in place and never written. */
export function kiloSource(options: OpencodeSourceOptions) {
  return opencodeFamilySource(KILO, options);
}
