import type { Context } from '@deepseek-ai/cordis';
import type { SessionEvent, SessionHeader, SessionId } from '@deepseek-ai/dsh-session';
import type { SessionPersistenceSnapshot } from '@deepseek-ai/dsh-session-persistence';
import { KeptHeaders, type RootLogs } from '@sessref/dsh/reading';
import { CheckedJsonlPersistence, snapshotOf } from './storage.js';

/**
 * The JSONL persistence with cheap listings: dsh's session-query engine lists
 * the whole root to resolve every single read, and this answers each listing
 * from {@link KeptHeaders} (a stat walk of the root, or with `watch` only the
 * paths file-system events named), the full checks of
 * {@link CheckedJsonlPersistence} applied to every log it reads. A
 * snapshot's revision is the log's size, times and inode, so a reader
 * re-reads exactly the logs that changed; an unchanged root gets the same
 * frozen snapshots again. Writes go through dsh's backend, each noted so no
 * listing taken before it is reused.
 */
export class ListedJsonlPersistence extends CheckedJsonlPersistence {
  /** Follow file-system events instead of walking the root for every listing (long-lived processes). */
  protected watch = false;
  /** Where the kept headers persist between processes; `undefined` keeps them in memory. */
  protected headersFile: string | undefined = undefined;
  /** The listing a host shares with sessref's own reads of the same root, when it was given one. */
  protected shared: KeptHeaders | undefined = undefined;
  private keptHeaders: KeptHeaders | undefined;
  /** The snapshots handed out for each list of entries: the same entries get the same snapshots. */
  private snapshots = new WeakMap<readonly object[], readonly SessionPersistenceSnapshot[]>();

  constructor(ctx: Context, config: ConstructorParameters<typeof CheckedJsonlPersistence>[1]) {
    super(ctx, config);
    ctx.effect(() => () => this.keptHeaders?.close(), 'close the listing watchers');
  }

  /**
   * A subclass that follows file-system events (`watch`), keeps the headers
   * it read in `headersFile`, so a new process lists the root with a stat walk
   * instead of reading every log's header, or answers from `shared`, a
   * listing sessref's own reads of the same root already keep.
   */
  static with(options: { watch?: boolean; headersFile?: string; shared?: KeptHeaders }): typeof ListedJsonlPersistence {
    return class ConfiguredJsonlPersistence extends ListedJsonlPersistence {
      protected override watch = options.watch ?? false;
      protected override headersFile = options.headersFile;
      protected override shared = options.shared;
    };
  }

  /** The kept-header listing this persistence answers from. */
  get kept(): KeptHeaders {
    return (this.keptHeaders ??= this.shared ?? new KeptHeaders(this.logs, { watch: this.watch, ...(this.headersFile === undefined ? {} : { headersFile: this.headersFile }) }));
  }

  override list(signal?: AbortSignal): Promise<SessionHeader[]> {
    return this.kept.list(signal);
  }

  override async listSnapshots(signal?: AbortSignal): Promise<SessionPersistenceSnapshot[]> {
    const entries = await this.kept.entries(signal);
    let snapshots = this.snapshots.get(entries);
    if (snapshots === undefined) this.snapshots.set(entries, (snapshots = entries.map((entry) => Object.freeze(snapshotOf(entry)))));
    return [...snapshots];
  }

  protected override readLog(id: string, signal?: AbortSignal): ReturnType<KeptHeaders['load']> {
    return this.kept.load(id, signal);
  }

  override async create(meta: SessionHeader): Promise<void> {
    return this.noting(() => super.create(meta));
  }

  override async append(id: SessionId, events: readonly SessionEvent[]): Promise<void> {
    return this.noting(() => super.append(id, events));
  }

  override async appendBatch(meta: SessionHeader, events: readonly SessionEvent[], isMaterialized: boolean): Promise<void> {
    return this.noting(() => super.appendBatch(meta, events, isMaterialized));
  }

  protected override makeLogs(): RootLogs {
    return this.shared?.logs ?? super.makeLogs();
  }

  /** Run a write, noted before and after (see {@link KeptHeaders.noteWrite}). */
  private async noting(write: () => Promise<void>): Promise<void> {
    this.kept.noteWrite();
    try {
      return await write();
    } finally {
      this.kept.noteWrite();
    }
  }
}
