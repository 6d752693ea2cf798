/**
 * `--target` names the session a message is written in: one of the root's
 * own dsh sessions. Another agent's session is read in place and never
 * written, so `list`, `search` and `prepare` refuse it as a target before
 * asking the engine, whose answer for it is "not found" (which `show`,
 * displaying it, would contradict) or speaks of a write `prepare` never makes.
 */
import type { Engine } from '../engine/engine.js';
import { usageError } from '../failure.js';

type TargetingCommand = 'list' | 'search' | 'prepare';

/** How each command is run instead, with a dsh target citing the session `id`. */
const INSTEAD: { readonly [C in TargetingCommand]: (id: string) => string } = {
  list: (id) => `sessref list --target <dsh session>, then cite it with $(sessref mention ${id})`,
  search: (id) => `sessref search QUERY --target <dsh session>, then cite it with $(sessref mention ${id})`,
  prepare: (id) => `sessref prepare --target <dsh session> "see $(sessref mention ${id})"`,
};

/** A usage error when `target` is another agent's session; nothing otherwise. */
export function refuseForeignTarget(engine: Engine, target: string, command: TargetingCommand): void {
  const agent = engine.agentOf(target);
  if (agent === undefined) return;
  throw usageError(
    `--target ${target} is a ${agent} session, read in place: --target names the dsh session of the root a message is written in`,
    `target a dsh session and cite this one from it, e.g. ${INSTEAD[command](target)}`,
  );
}

/**
 * A usage error when `target` is a session mirrored from another machine:
 * the mirror is a read-only copy that the next sync replaces, and the
 * machine itself is never written, so no command sends there.
 */
export function refuseRemoteTarget(engine: Engine, target: string): void {
  const host = engine.hostOf(target);
  if (host === undefined) return;
  throw usageError(
    `--target ${target} is a session of the remote ${host}, mirrored read-only: sessref never writes to another machine or its mirror`,
    `send from a dsh session of this machine and cite this one, e.g. sessref send --target <dsh session> "see $(sessref mention ${target})"`,
  );
}
