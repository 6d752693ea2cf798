import { SessionReferenceError } from './errors.js';

function cancelledError(signal: AbortSignal): SessionReferenceError {
  return new SessionReferenceError('session reference preparation was cancelled', 'SESSION_REFERENCE_CANCELLED', {
    cause: signal.reason,
  });
}

export function throwIfCancelled(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw cancelledError(signal);
}

/**
 * Settle with `work`, or reject with `SESSION_REFERENCE_CANCELLED` as soon as
 * `signal` aborts, even if `work` never settles. The listener is removed
 * either way so a long-lived signal does not collect closures.
 */
export function raceCancellation<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return work;
  throwIfCancelled(signal);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(cancelledError(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        if (signal.aborted) reject(cancelledError(signal));
        else resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(signal.aborted ? cancelledError(signal) : error);
      },
    );
  });
}
