/**
 * Let the event loop's poll phase hand queued file-system events to their
 * watchers. One immediate is not enough: called from the poll phase (an I/O
 * callback, where a write just finished), the immediate runs in the same
 * loop turn, before the kernel's new events are read. The second immediate,
 * queued from the check phase, runs only after the next poll phase. The
 * kernel queues an event when the write happens, so a write finished before
 * the call has been seen when it resolves.
 */
export async function deliverPendingEvents(): Promise<void> {
  for (let turn = 0; turn < 2; turn += 1) await new Promise((resolve) => setImmediate(resolve));
}
