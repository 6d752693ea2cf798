import type { Entry, Step } from './records.js';

/** The turn an active segment of the backward scan belongs to, and what it holds. */
interface Segment {
  turnId?: string;
  userTurn: boolean;
  /** The index of the newest compaction with a replacement history in it. */
  base?: number;
}

/**
 * The model's current history, as Codex rebuilds it when it resumes a thread
 * (`reconstruct_history_from_rollout`, codex-rs/core/src/session/rollout_reconstruction.rs):
 * a backward scan finds the newest compaction whose turn no rollback undid,
 * whose replacement history is the base; the steps after it are replayed
 * forward, where a later compaction replaces everything and a rollback drops
 * the newest user turns.
 */
export function currentHistory(steps: readonly Step[]): Entry[] {
  const { base, from } = survivingBase(steps);
  let history = historyOf(base === undefined ? [] : replacementOf(base));
  for (let index = from; index < steps.length; index += 1) history = replay(history, steps[index]);
  return history.entries;
}

/**
 * The backward scan. Steps group into turns closed by their `turn-started`;
 * a rollback of N turns skips the next N user turns met. Like Codex, the
 * forward replay starts after the oldest compaction the scan reached, even
 * one a rollback skipped.
 */
function survivingBase(steps: readonly Step[]): { base?: Extract<Step, { kind: 'compacted' }>; from: number } {
  let pendingRollback = 0;
  let active: Segment | undefined;
  let base: number | undefined;
  let from = 0;
  const finish = (segment: Segment): void => {
    if (pendingRollback > 0) {
      if (segment.userTurn) pendingRollback -= 1;
    } else {
      base ??= segment.base;
    }
  };
  for (let index = steps.length - 1; index >= 0 && base === undefined; index -= 1) {
    const step = steps[index];
    if (step === undefined) continue;
    switch (step.kind) {
      case 'compacted':
        active ??= { userTurn: false };
        if (active.base === undefined && step.replacement !== undefined) {
          active.base = index;
          from = index + 1;
        }
        break;
      case 'rollback':
        pendingRollback = Math.min(Number.MAX_SAFE_INTEGER, pendingRollback + step.turns);
        break;
      case 'turn-ended':
      case 'turn-context':
        active ??= { userTurn: false };
        active.turnId ??= step.turnId;
        break;
      case 'turn-aborted':
        if (active !== undefined) active.turnId ??= step.turnId;
        else if (step.turnId !== undefined) active = { turnId: step.turnId, userTurn: false };
        break;
      case 'user-turn':
        active ??= { userTurn: false };
        active.userTurn = true;
        break;
      case 'item':
        active ??= { userTurn: false };
        active.userTurn ||= isUserTurn(step.entry);
        break;
      case 'turn-started':
        if (active !== undefined && sameTurn(active.turnId, step.turnId)) {
          finish(active);
          active = undefined;
        }
        break;
      default:
        break;
    }
  }
  if (active !== undefined && base === undefined) finish(active);
  const found = base === undefined ? undefined : steps[base];
  return found?.kind === 'compacted' ? { base: found, from } : { from };
}

/** Turn ids match unless both are known and differ (older rollouts have none). */
function sameTurn(active: string | undefined, started: string | undefined): boolean {
  return active === undefined || started === undefined || active === started;
}

/**
 * The forward replay's history, with the counts that keep each step as cheap
 * as what it changes, so hostile runs of rollbacks or compactions stay linear.
 */
interface History {
  entries: Entry[];
  /** How many entries are user turns. */
  userTurns: number;
  /** How many leading entries are known to be the user's own messages (all a legacy compaction keeps). */
  usersOnly: number;
}

function historyOf(entries: Entry[]): History {
  return { entries, userTurns: entries.filter(isUserTurn).length, usersOnly: 0 };
}

function replay(history: History, step: Step | undefined): History {
  switch (step?.kind) {
    case 'item':
      history.entries.push(step.entry);
      if (isUserTurn(step.entry)) history.userTurns += 1;
      return history;
    case 'compacted':
      return step.replacement === undefined ? compactLegacy(history, step.summary) : historyOf(replacementOf(step));
    case 'rollback':
      return rollBack(history, step.turns);
    default:
      return history;
  }
}

/** A compaction's replacement history, with its summary as the checkpoint when the history holds none. */
function replacementOf(compaction: Extract<Step, { kind: 'compacted' }>): Entry[] {
  const entries = [...(compaction.replacement ?? [])];
  if (compaction.summary !== '' && !entries.some((entry) => entry.kind === 'checkpoint')) entries.push({ kind: 'checkpoint', text: compaction.summary });
  return entries;
}

/** What a compaction without a replacement history (the oldest builds) leaves: the user's messages, then its summary (compact.rs `collect_user_messages`). */
function compactLegacy(history: History, summary: string): History {
  const { entries } = history;
  let kept = history.usersOnly;
  for (let index = kept; index < entries.length; index += 1) {
    const entry = entries[index];
    if (entry?.kind === 'user') entries[kept++] = entry;
  }
  entries.length = kept;
  history.usersOnly = kept;
  if (summary !== '') entries.push({ kind: 'checkpoint', text: summary });
  history.userTurns = entries.length;
  return history;
}

/**
 * The history without its newest `turns` user turns, cut where the first of
 * them begins; what precedes the first user turn always stays (Codex's
 * `drop_last_n_user_turns`).
 */
function rollBack(history: History, turns: number): History {
  const dropped = Math.min(turns, history.userTurns);
  const { entries } = history;
  let cut = entries.length;
  for (let remaining = dropped; remaining > 0; ) {
    cut -= 1;
    const entry = entries[cut];
    if (entry !== undefined && isUserTurn(entry)) remaining -= 1;
  }
  entries.length = cut;
  history.userTurns -= dropped;
  history.usersOnly = Math.min(history.usersOnly, cut);
  return history;
}

function isUserTurn(entry: Entry): boolean {
  return entry.kind !== 'assistant';
}
