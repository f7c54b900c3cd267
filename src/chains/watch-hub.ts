// Push-style deposit watches built on any adapter's pull API: polls, reports each qualifying deposit at least once.
// Adapter-neutral, so the EVM adapter can reuse it: all it needs is `depositsTo` and a cheap change mark.
import type { ChainName } from '../assets/types.js';
import { accountKey } from './accounts.js';
import type { Deposit, DepositWatch, OnDeposit } from './types.js';

export interface WatchSource {
  depositsTo(chain: ChainName, address: string): Promise<Deposit[]>;
  /** Changes whenever a poll could find something new on `chain` (a new transfer, a new block). */
  mark(chain: ChainName): Promise<string>;
}

interface Entry {
  chain: ChainName;
  address: string;
  min: number;
  onDeposit: OnDeposit;
  /** Reported and acknowledged (the callback returned or resolved). */
  reported: Set<string>;
  /** Callback still running: not called again meanwhile. */
  inflight: Set<string>;
  /** Mark at the last complete pass; null forces a pass (new watch, or a callback failed and must be retried). */
  lastMark: string | null;
  stopped: boolean;
}

export class WatchHub {
  private readonly entries = new Set<Entry>();
  private timer: NodeJS.Timeout | null = null;
  private scheduled = false;
  private closed = false;
  private running: Promise<void> | null = null;

  constructor(
    private readonly source: WatchSource,
    /** 0: no timer, only `poll()` and `nudge()` check. */
    private readonly pollMs: number,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  watch(chain: ChainName, address: string, onDeposit: OnDeposit, min: number): DepositWatch {
    const entry: Entry = {
      chain,
      address: accountKey(chain, address),
      min,
      onDeposit,
      reported: new Set(),
      inflight: new Set(),
      lastMark: null,
      stopped: false,
    };
    this.entries.add(entry);
    this.ensureTimer();
    // Existing deposits are reported too: a watch made after a restart must learn what arrived while it was down.
    this.nudge();
    return {
      stop: () => {
        entry.stopped = true;
        this.entries.delete(entry);
        if (this.entries.size === 0) this.clearTimer();
      },
    };
  }

  /** Schedules one check soon (after a local transfer), coalescing bursts into one pass. */
  nudge(): void {
    if (this.scheduled || this.closed || this.entries.size === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.background();
    });
  }

  /** One pass over every watch. Passes never overlap: a call during a pass waits for it and then runs its own. */
  async poll(): Promise<void> {
    while (this.running) await this.running.catch(() => undefined);
    if (this.closed) return;
    const pass = this.pass();
    this.running = pass;
    try {
      await pass;
    } finally {
      this.running = null;
    }
  }

  close(): void {
    this.closed = true;
    this.entries.clear();
    this.clearTimer();
  }

  private async pass(): Promise<void> {
    const marks = new Map<ChainName, string>();
    const callbacks: Promise<void>[] = [];
    for (const entry of [...this.entries]) {
      if (this.closed) return;
      let mark = marks.get(entry.chain);
      if (mark === undefined) {
        mark = await this.source.mark(entry.chain);
        marks.set(entry.chain, mark);
      }
      if (entry.stopped || entry.lastMark === mark) continue;
      const deposits = await this.source.depositsTo(entry.chain, entry.address);
      entry.lastMark = mark;
      for (const d of deposits) {
        if (d.confirmations < entry.min || entry.reported.has(d.txId) || entry.inflight.has(d.txId)) continue;
        if (entry.stopped) break;
        callbacks.push(this.deliver(entry, d));
      }
    }
    await Promise.all(callbacks);
  }

  private async deliver(entry: Entry, d: Deposit): Promise<void> {
    entry.inflight.add(d.txId);
    try {
      await entry.onDeposit(d);
      entry.reported.add(d.txId);
    } catch {
      // At least once: a failed delivery is repeated on a later pass, so the next pass must not be skipped.
      entry.lastMark = null;
    } finally {
      entry.inflight.delete(d.txId);
    }
  }

  /** A pass nobody awaits: a failing source (a closed or busy ledger) is retried on the next tick, not thrown. */
  private background(): void {
    this.poll().catch(() => undefined);
  }

  private ensureTimer(): void {
    if (this.timer || this.pollMs <= 0 || this.closed) return;
    this.timer = setInterval(() => this.background(), this.pollMs);
    // Watches must not keep a process alive that has nothing else to do (tests, a draining service).
    this.timer.unref();
  }

  private clearTimer(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
