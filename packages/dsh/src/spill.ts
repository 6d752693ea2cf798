/**
 * A 0.1.7 host's `ctx.spillStore` (`@deepseek-ai/dsh-spill`, an optional
 * service) as the core's full-snapshot store. rc.8 has no such package, so
 * the service is typed here by the one method this plugin calls and checked
 * at run time.
 */
import type { Context } from '@deepseek-ai/cordis';
import type { FullSnapshotStore, SavedSnapshot } from '@sessref/core';
import { isJsonObject } from '@sessref/core/internal';

/** What `saveText` takes: the owner (the session receiving the context), the source it renders, a file name and the text. */
interface SaveTextSpill {
  owner: { sessionId: string };
  source: { kind: 'session-reference'; sessionId: string; label: string };
  suggestedName: string;
  content: string;
}

interface SpillStoreLike {
  saveText(input: SaveTextSpill): Promise<unknown>;
}

/**
 * The host's spill store saving transcripts for `ownerId`, or `undefined`
 * when the host has none (the omissions notice then says so). Read at each
 * preparation: the optional service may come and go with its plugin.
 */
export function spillStoreOf(ctx: Context, ownerId: string): FullSnapshotStore | undefined {
  const store: unknown = ctx.get('spillStore');
  if (!isSpillStore(store)) return undefined;
  return {
    save: async ({ sessionId, label, inputIndex, transcript }) =>
      savedSnapshot(
        await store.saveText({
          owner: { sessionId: ownerId },
          source: { kind: 'session-reference', sessionId, label },
          suggestedName: `session-reference-${inputIndex + 1}.txt`,
          content: transcript,
        }),
      ),
  };
}

function isSpillStore(value: unknown): value is SpillStoreLike {
  return typeof value === 'object' && value !== null && typeof Reflect.get(value, 'saveText') === 'function';
}

/** A `SpillRef` as the notice reports it; any other answer counts as a failed save, never as a saved snapshot. */
function savedSnapshot(ref: unknown): SavedSnapshot {
  if (isJsonObject(ref)) {
    const { locator, bytes, retrievalHint } = ref;
    if (typeof locator === 'string' && typeof bytes === 'number' && typeof retrievalHint === 'string') return { locator, bytes, retrievalHint };
  }
  throw new TypeError('the spill store answered something other than a SpillRef');
}
