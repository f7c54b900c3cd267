// One venue quote under a deadline: the venue gets an AbortSignal that fires at the deadline, and the router stops
// waiting at that instant whether or not the venue honours the signal (its promise is then abandoned).
import type { Asset } from '../assets/types.js';
import { VenueTimeout } from '../errors.js';
import type { Venue } from '../venues/types.js';

export type AskOutcome =
  | { status: 'quoted'; elapsedMs: number; amountOut: bigint }
  | { status: 'failed'; elapsedMs: number; error: string }
  | { status: 'timed_out'; elapsedMs: number };

/** Whole milliseconds since `t0` on the monotonic clock (a wall clock step must not make elapsed_ms negative). */
export function elapsedSince(t0: number): number {
  return Math.max(0, Math.round(performance.now() - t0));
}

export async function askVenue(venue: Venue, from: Asset, to: Asset, amountIn: bigint, deadlineMs: number): Promise<AskOutcome> {
  const ctl = new AbortController();
  const t0 = performance.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const cut = new Promise<'cut'>((resolve) => {
    timer = setTimeout(() => {
      // Resolve before aborting, so the race settles as a cut-off even if the venue rejects on the abort at once.
      resolve('cut');
      ctl.abort(new VenueTimeout(`${venue.id} did not answer within ${deadlineMs} ms.`));
    }, deadlineMs);
  });
  let call: Promise<Awaited<ReturnType<Venue['quote']>>>;
  try {
    call = venue.quote({ from, to, amountIn, signal: ctl.signal });
  } catch (err) {
    call = Promise.reject(err);
  }
  // An abandoned call may still reject later; that must not surface as an unhandled rejection.
  call.catch(() => undefined);
  try {
    const answer = await Promise.race([call, cut]);
    if (answer === 'cut') return { status: 'timed_out', elapsedMs: elapsedSince(t0) };
    if (typeof answer.amountOut !== 'bigint' || answer.amountOut <= 0n) {
      return { status: 'failed', elapsedMs: elapsedSince(t0), error: `${venue.id} quoted no output.` };
    }
    return { status: 'quoted', elapsedMs: elapsedSince(t0), amountOut: answer.amountOut };
  } catch (err) {
    // A venue reporting its own timeout, or rejecting because our signal fired, is a cut-off rather than a failure.
    if (ctl.signal.aborted || err instanceof VenueTimeout) return { status: 'timed_out', elapsedMs: elapsedSince(t0) };
    return { status: 'failed', elapsedMs: elapsedSince(t0), error: errorText(venue.id, err) };
  } finally {
    clearTimeout(timer);
  }
}

function errorText(venue: string, err: unknown): string {
  const msg = err instanceof Error ? err.message : String(err);
  return msg.trim() === '' ? `${venue} failed without a reason.` : msg;
}
