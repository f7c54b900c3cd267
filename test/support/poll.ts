// Waits of the tests for what runs in the background (a deposit seen, an order moving, a server listening): read again
// and again until the answer is the one expected or the time is up. `pollUntil` answers the last read and leaves the
// verdict to the caller's expectation; `waitFor` and `waitUntil` throw, for waits that only lead up to what is checked.

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Reads until `done` holds of the answer or `ms` passed, every `everyMs`; answers the last read, which the caller
 *  asserts on (a failed expectation then shows what was last seen). */
export async function pollUntil<T>(read: () => T | Promise<T>, done: (v: T) => boolean, ms: number, everyMs = 50): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (done(v) || Date.now() > end) return v;
    await sleep(everyMs);
  }
}

/** Reads until `done` holds of the answer, every `everyMs`, and answers that read; after `ms`, throws with `what(last)`
 *  as the message (or, for a string, a message naming it). */
export async function waitFor<T>(read: () => T | Promise<T>, done: (v: T) => boolean, what: string | ((last: T) => string), ms: number, everyMs = 50): Promise<T> {
  const v = await pollUntil(read, done, ms, everyMs);
  if (!done(v)) throw new Error(typeof what === 'string' ? `timed out waiting for ${what}` : what(v));
  return v;
}

/** Waits until `cond` holds, every `everyMs`; throws naming `what` after `ms`. */
export async function waitUntil(cond: () => boolean | Promise<boolean>, what: string, ms: number, everyMs = 50): Promise<void> {
  await waitFor(cond, (ok) => ok, what, ms, everyMs);
}
