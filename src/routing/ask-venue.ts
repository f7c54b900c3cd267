// Venue quotes under a deadline. A search (one route() call) has one cut-off: one timer and one AbortSignal for all
// its venue asks, so a quote that asks a hundred venues arms one timer, not a hundred, and no venue of the search is
// waited for past the mode's deadline, whichever hop asked it. The router stops waiting at the cut-off whether or
// not the venue honours the signal (its promise is then abandoned).
import { setMaxListeners } from 'node:events';
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

const CUT: unique symbol = Symbol('cut');

export interface Cutoff {
  readonly deadlineMs: number;
  /** Fires at the deadline; every venue asked under this cut-off gets it. */
  readonly signal: AbortSignal;
  /** True once the deadline has passed: later asks are not made. */
  readonly passed: boolean;
  /** Settles as the call does, or with CUT at the deadline, whichever comes first. */
  wait<T>(call: Promise<T>): Promise<T | typeof CUT>;
  /** Disarms the timer; called when the search has settled (nothing is left waiting). */
  close(): void;
}

/** A cut-off `deadlineMs` from now. The timer is armed by the first wait, so a search that asks no venue sets none. */
export function createCutoff(deadlineMs: number): Cutoff {
  const startedAt = performance.now();
  const ctl = new AbortController();
  // Every pending venue of the search may listen on this one signal (dozens for a wide multi-hop search); that is
  // by design, not a leak, so Node's listener-count warning does not apply.
  setMaxListeners(0, ctl.signal);
  const waiting = new Set<(v: typeof CUT) => void>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let passed = false;
  let closed = false;
  const fire = () => {
    passed = true;
    timer = undefined;
    // Settle the waits before aborting, so each settles as a cut-off even if its venue rejects on the abort at once.
    for (const cut of waiting) cut(CUT);
    waiting.clear();
    ctl.abort(new VenueTimeout(`No answer within the deadline of ${deadlineMs} ms.`));
  };
  return {
    deadlineMs,
    signal: ctl.signal,
    get passed() {
      return passed;
    },
    wait<T>(call: Promise<T>): Promise<T | typeof CUT> {
      if (passed) return Promise.resolve(CUT);
      if (timer === undefined && !closed) timer = setTimeout(fire, Math.max(0, startedAt + deadlineMs - performance.now()));
      return new Promise<T | typeof CUT>((resolve, reject) => {
        waiting.add(resolve);
        // Both handlers attached here, so an abandoned call that rejects later is never an unhandled rejection.
        call.then(
          (v) => {
            waiting.delete(resolve);
            resolve(v);
          },
          (err: unknown) => {
            waiting.delete(resolve);
            reject(err);
          },
        );
      });
    },
    close() {
      closed = true;
      clearTimeout(timer);
      timer = undefined;
    },
  };
}

/** One venue quote under the search's cut-off; `elapsedMs` is measured from this ask. */
export async function askBefore(cutoff: Cutoff, venue: Venue, from: Asset, to: Asset, amountIn: bigint): Promise<AskOutcome> {
  if (cutoff.passed) return { status: 'timed_out', elapsedMs: 0 };
  const t0 = performance.now();
  let call: Promise<Awaited<ReturnType<Venue['quote']>>>;
  try {
    call = venue.quote({ from, to, amountIn, signal: cutoff.signal });
  } catch (err) {
    call = Promise.reject(err);
  }
  try {
    const answer = await cutoff.wait(call);
    if (answer === CUT) return { status: 'timed_out', elapsedMs: elapsedSince(t0) };
    if (typeof answer.amountOut !== 'bigint' || answer.amountOut <= 0n) {
      return { status: 'failed', elapsedMs: elapsedSince(t0), error: `${venue.id} quoted no output.` };
    }
    return { status: 'quoted', elapsedMs: elapsedSince(t0), amountOut: answer.amountOut };
  } catch (err) {
    // A venue reporting its own timeout, or rejecting because our signal fired, is a cut-off rather than a failure.
    if (cutoff.signal.aborted || err instanceof VenueTimeout) return { status: 'timed_out', elapsedMs: elapsedSince(t0) };
    return { status: 'failed', elapsedMs: elapsedSince(t0), error: errorText(venue.id, err) };
  }
}

/** One venue quote with a deadline of its own (the exact-output search prices probes one by one). */
export async function askVenue(venue: Venue, from: Asset, to: Asset, amountIn: bigint, deadlineMs: number): Promise<AskOutcome> {
  const cutoff = createCutoff(deadlineMs);
  try {
    return await askBefore(cutoff, venue, from, to, amountIn);
  } finally {
    cutoff.close();
  }
}

function errorText(venue: string, err: unknown): string {
  const msg = err instanceof Error ? err.message : String(err);
  return msg.trim() === '' ? `${venue} failed without a reason.` : msg;
}
