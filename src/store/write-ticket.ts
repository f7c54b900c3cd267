// Write tickets: two writes of one store queued together, the second committed with the first or after it.
/**
 * Ties a write to one before it: handed to the first write as `ticket` and to the second as `after`. The second is
 * committed in the same transaction as the first or in a later one, never before it, and is refused with the first
 * one's error when the first is refused; so a caller may queue the second without waiting for the first to be durable
 * (a quote's bind and the creation of the order it binds share one commit). A ticket no write took ties nothing.
 */
export class WriteTicket {
  /** Settles as the write that took the ticket does; undefined while no write took it. */
  settled: Promise<unknown> | undefined;
  /** The adapter's own handle of that write (the SQLite adapter's queued write), which only that adapter can look up;
   *  undefined for an adapter that ties no writes. */
  handle: object | undefined;

  /** The adapter taking a write under this ticket records it here (once: a ticket ties one write). */
  take(settled: Promise<unknown>, handle: object | undefined): void {
    if (this.settled) throw new Error('A write ticket ties one write; this one is taken.');
    // The caller of the first write observes its outcome; the tie must not raise a second unhandled rejection.
    settled.catch(() => undefined);
    this.settled = settled;
    this.handle = handle;
  }
}

/** For an adapter that cannot commit two writes in one transaction: waits until the write `after` names is durable,
 *  rejecting with its error when it was refused; a ticket no write took waits for nothing. */
export async function followed(after: WriteTicket | undefined): Promise<void> {
  if (after?.settled) await after.settled;
}
