/**
 * What names a session wherever a person or the model reads it (a candidate,
 * a mention, a snapshot's `label`, a listing): its title, else its id. A
 * title is used as given, even an empty one; only an absent title falls back.
 */
export function labelOf(sessionId: string, title: string | undefined): string {
  return title ?? sessionId;
}
