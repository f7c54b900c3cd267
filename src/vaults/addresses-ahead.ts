// Deposit addresses derived ahead, on a worker thread. An order's creation derives its deposit address inside its
// store write, on the event loop, and the derivation (an HMAC, a curve multiplication, Keccak) is about a sixth of the
// creation's CPU. The indexes a process hands out next are known (each scheme's counter goes up by one), so a worker
// thread derives the next few while the loop serves requests, and a creation takes its address from there. A miss
// (the first creation, a counter another process draws from too, a thread not done yet or gone) derives on the loop
// as before. The thread runs the same derivation from the same seed, so what it hands over is what the loop would
// derive; the seed's bytes are copied to it once and never leave the process.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, extname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import { MAX_INDEX, type VaultScheme } from './derive.js';
import { seedBytes, type MasterSeed } from './seed.js';

export interface AddressesAhead {
  /** The address at `index` if the thread has derived it (undefined otherwise); either way the thread is kept ahead
   *  of `index`. Each address is handed out once. */
  take(scheme: VaultScheme, index: number): string | undefined;
  /** Settles once the thread has answered every batch asked of it so far (or is gone). */
  caughtUp(): Promise<void>;
  close(): Promise<void>;
}

/** A batch the worker thread is asked for, and what it answers. */
export interface AheadRequest {
  scheme: VaultScheme;
  from: number;
  count: number;
}
export type AheadAnswer = { ok: true; scheme: VaultScheme; from: number; addresses: string[] } | { ok: false; error: string };

/** What the worker thread starts with. */
export interface AheadWorkerData {
  seed: Uint8Array;
  /** URL of derive-worker, and of tsx's loader API for a process that does not run under tsx's loader. */
  module: string;
  tsx: string;
}

// The worker's entry is evaluated JavaScript that loads derive-worker.ts: through the loader this process runs with
// when it has one (`npm start` runs under tsx, whose loader a worker inherits), else by registering tsx's loader in the
// thread first (a test runner that compiles TypeScript itself).
const BOOT = `
const { parentPort, workerData } = require('node:worker_threads');
(async () => {
  let mod;
  try {
    mod = await import(workerData.module);
  } catch (err) {
    if (err?.code !== 'ERR_UNKNOWN_FILE_EXTENSION') throw err;
    (await import(workerData.tsx)).register();
    // Under another URL: the loader keeps the failed attempt of the first one.
    mod = await import(workerData.module + '?tsx');
  }
  mod.serve(parentPort, workerData);
})().catch((err) => parentPort.postMessage({ ok: false, error: String(err?.stack ?? err) }));
`;

/** The file URL of tsx's ESM loader API (`tsx/esm/api` as `import` resolves it; require's copy of it cannot register). */
function tsxLoaderApi(): string {
  const pkg = createRequire(import.meta.url).resolve('tsx/package.json');
  const { exports } = JSON.parse(readFileSync(pkg, 'utf8')) as { exports: Record<string, { import: { default: string } }> };
  return pathToFileURL(join(dirname(pkg), exports['./esm/api']!.import.default)).href;
}

interface SchemeState {
  /** Addresses derived and not yet taken, by index. */
  ready: Map<number, string>;
  /** The highest index asked of the thread so far. */
  asked: number;
  /** The highest index taken so far. */
  taken: number;
}

export function deriveAddressesAhead(seed: MasterSeed, opts: { ahead: number; logger: Logger }): AddressesAhead {
  const { ahead, logger } = opts;
  const schemes = new Map<VaultScheme, SchemeState>();
  // Started by the first take: a process that creates no order never starts the thread.
  let worker: Worker | null | undefined;
  let pending = 0;
  let waiting: Array<() => void> = [];
  const settle = () => {
    if (pending > 0 && worker) return;
    for (const w of waiting) w();
    waiting = [];
  };
  const stop = (why: string, err?: unknown) => {
    if (!worker) return;
    logger.warn({ err }, `deposit addresses are derived on the event loop from now on: ${why}`);
    void worker.terminate();
    worker = null;
    settle();
  };
  const start = (): Worker => {
    const data: AheadWorkerData = {
      seed: Uint8Array.from(seedBytes(seed)),
      // Beside this module, with its extension: .ts under tsx, .js once compiled.
      module: new URL(`./derive-worker${extname(new URL(import.meta.url).pathname)}`, import.meta.url).href,
      tsx: tsxLoaderApi(),
    };
    const w = new Worker(BOOT, { eval: true, workerData: data });
    // The thread never keeps the process alive: a service that stops without close() still exits.
    w.unref();
    w.on('message', (answer: AheadAnswer) => {
      if (!answer.ok) return stop('the deriving thread failed', answer.error);
      const state = schemes.get(answer.scheme);
      answer.addresses.forEach((address, i) => {
        if (state && answer.from + i > state.taken) state.ready.set(answer.from + i, address);
      });
      pending--;
      settle();
    });
    w.on('error', (err) => stop('the deriving thread failed', err));
    w.on('exit', (code) => stop(`the deriving thread exited (code ${code})`));
    return w;
  };

  return {
    take(scheme, index) {
      if (worker === undefined) worker = start();
      let state = schemes.get(scheme);
      if (!state) schemes.set(scheme, (state = { ready: new Map(), asked: -1, taken: -1 }));
      const address = state.ready.get(index);
      // Indexes up to this one are taken (here or by another process sharing the counter): never handed out again.
      state.taken = Math.max(state.taken, index);
      for (const i of state.ready.keys()) if (i <= state.taken) state.ready.delete(i);
      // Asked for in batches of half the window, so the thread gets one message per ahead/2 creations.
      const last = Math.min(index + ahead, MAX_INDEX);
      if (worker && state.asked < Math.min(index + Math.ceil(ahead / 2), last)) {
        const from = Math.max(state.asked, index) + 1;
        state.asked = last;
        pending++;
        worker.postMessage({ scheme, from, count: last - from + 1 } satisfies AheadRequest);
      }
      return address;
    },
    caughtUp() {
      return new Promise<void>((resolve) => {
        waiting.push(resolve);
        settle();
      });
    },
    async close() {
      const w = worker;
      worker = null;
      settle();
      await w?.terminate();
    },
  };
}
