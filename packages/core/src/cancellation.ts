import { SessionReferenceError } from './errors.js';

/** What a cancelled piece of work is called in its error's message unless the caller names it. */
const PREPARATION = 'session reference preparation';

function cancelledError(signal: AbortSignal, what: string): SessionReferenceError {
  return new SessionReferenceError(`${what} was cancelled`, 'SESSION_REFERENCE_CANCELLED', {
    cause: signal.reason,
  });
}

/**
 * Throw `SESSION_REFERENCE_CANCELLED` (the abort reason as its cause) when
 * `signal` has aborted; `what` names the work in the message.
 */
export function throwIfCancelled(signal: AbortSignal | undefined, what = PREPARATION): void {
  if (signal?.aborted) throw cancelledError(signal, what);
}

/**
 * Settle with `work`, or reject with `SESSION_REFERENCE_CANCELLED` as soon as
 * `signal` aborts, even if `work` never settles (already aborted: at once).
 * The listener is removed either way so a long-lived signal does not collect
 * closures. `what` names the work in the message.
 */
export function raceCancellation<T>(work: Promise<T>, signal: AbortSignal | undefined, what = PREPARATION): Promise<T> {
  if (signal === undefined) return work;
  if (signal.aborted) return Promise.reject(cancelledError(signal, what));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(cancelledError(signal, what));
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        if (signal.aborted) reject(cancelledError(signal, what));
        else resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(signal.aborted ? cancelledError(signal, what) : error);
      },
    );
  });
}
