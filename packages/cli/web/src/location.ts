/**
 * The chosen target lives in the address as `?session=<id>`, so a reload or a
 * bookmark returns to it. The query, not the fragment: the launch token
 * arrives as `#token=…` and api.ts clears the fragment once it has it.
 */
const PARAM = 'session';

export function targetInAddress(): string | undefined {
  return new URLSearchParams(location.search).get(PARAM) ?? undefined;
}

/** Record `id` as the target without adding a history entry per click. */
export function keepTargetInAddress(id: string): void {
  const params = new URLSearchParams(location.search);
  if (params.get(PARAM) === id) return;
  params.set(PARAM, id);
  history.replaceState(null, '', `${location.pathname}?${params.toString()}`);
}
