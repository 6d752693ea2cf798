/** Human-readable ages and sizes, shared by the terminal output and the inspector's page (no Node API). */

/** How long ago `createdAt` was, coarsely: seconds, minutes, hours, then days. */
export function formatAge(createdAt: number, now = Date.now()): string {
  const seconds = Math.max(0, Math.round((now - createdAt) / 1000));
  if (seconds < 60) return `${seconds}s ago`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes}m ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 48) return `${hours}h ago`;
  return `${Math.round(hours / 24)}d ago`;
}

/**
 * A listed session's age, as dsh dates it: since the user last sent a
 * message when its listing knows that moment (a v4 log; dsh 0.2 moves a
 * session's date only when the user sends), said so; else since it was
 * created, as sessref always gave it.
 */
export function formatListedAge(session: { createdAt: number; lastSentAt?: number | undefined }, now = Date.now()): string {
  return session.lastSentAt === undefined ? formatAge(session.createdAt, now) : `last sent ${formatAge(session.lastSentAt, now)}`;
}

/** Bytes in B, KiB or MiB. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** How far a build of the content index has come (sessions indexed of those to read, the time left once known), as the CLI's stderr and the inspector's `@` menu say it. */
export function formatIndexProgress({ indexed, total, remainingMs }: { indexed: number; total?: number | undefined; remainingMs?: number | undefined }): string {
  const left = remainingMs === undefined ? '' : `, about ${Math.ceil(remainingMs / 1000)} s left`;
  return total === undefined ? 'indexing conversations…' : `indexing conversations: ${indexed} of ${total} sessions${left}`;
}
