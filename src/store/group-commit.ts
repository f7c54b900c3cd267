// Group commit of one SQLite connection: the writes asked for in one turn of the event loop (the saves of many
// concurrent actors) share one transaction, so they cost one fsync; each runs in its own savepoint, so a refused
// compare-and-set or fencing check fails only its own write, and every write's promise settles only once the
// transaction has committed.
// Processes of one host share the file, and BEGIN IMMEDIATE can still answer SQLITE_BUSY while another holds the
// write lock, sometimes well before busy_timeout (seen with two workers and an edge under load): a batch that meets a
// busy file is tried again after a short wait, for up to `busyRetryMs`, before its writes fail. A failed transaction
// was rolled back, so trying it again runs each write from its start (a write's `run` must be pure for this:
// createNumbered's build is).
// A write that follows another (WriteTicket) is queued after it, so it runs in the same batch or a later one; it is
// refused with that write's error when that write's savepoint or batch failed.
import type Database from 'better-sqlite3';
import { busyPauseMs, isBusy } from './sqlite-open.js';
import type { WriteOptions } from './types.js';
import { followed } from './write-ticket.js';

/** What the SQLite adapter has done since it was opened: `commits` transactions reached the disk, carrying `writes`
 *  store writes (saves, counters, keys); benches read it to count the durable transactions of an operation. */
export interface SqliteWriteStats {
  commits: number;
  writes: number;
}

type Outcome = { ok: true; value: unknown } | { ok: false; err: unknown };

interface PendingWrite {
  /** Dropped once the write is settled: a ticket keeps its write after that, not the snapshot the write carried. */
  run: () => unknown;
  resolve(value: unknown): void;
  reject(err: unknown): void;
  /** The write this one follows (WriteTicket): queued before it, so its outcome is known when this one runs. */
  after: PendingWrite | undefined;
  /** Set when the write has run: its savepoint's outcome, then a failed commit's. */
  outcome: { ok: true } | { ok: false; err: unknown } | undefined;
}

const SETTLED = (): never => {
  throw new Error('A settled write ran again.');
};

export class GroupCommit {
  private queue: PendingWrite[] = [];
  private scheduled: NodeJS.Immediate | null = null;
  /** A batch that met a busy file waits for this timer, and writes asked for meanwhile join it. */
  private retry: NodeJS.Timeout | null = null;
  /** Since when the file has been busy for the batch waiting on `retry`, and how often it was tried. */
  private busy: { since: number; tries: number } | null = null;
  private readonly counted: SqliteWriteStats = { commits: 0, writes: 0 };
  /** The writes queued here, by the handle their tickets carry: a ticket of another store's write is not here (and is
   *  waited for instead). */
  private readonly queued = new WeakMap<object, PendingWrite>();
  private readonly batch: Database.Transaction<(writes: PendingWrite[]) => Outcome[]>;

  constructor(db: Database.Database, private readonly busyRetryMs: number) {
    const savepoint = db.transaction((run: () => unknown) => run());
    this.batch = db.transaction((writes: PendingWrite[]) =>
      writes.map((w): Outcome => {
        // A write following a refused one is refused with its error, and runs nothing.
        const before = w.after?.outcome ?? (w.after ? { ok: false as const, err: new Error('A write ran before the write it follows.') } : undefined);
        if (before && !before.ok) return (w.outcome = before);
        try {
          const value = savepoint(w.run);
          w.outcome = { ok: true };
          return { ok: true, value };
        } catch (err) {
          return (w.outcome = { ok: false, err });
        }
      }),
    );
  }

  stats(): SqliteWriteStats {
    return { ...this.counted };
  }

  /** Runs `run` inside the next batch's transaction; settles with its value once that transaction committed. */
  write<T>(run: () => T, opts?: WriteOptions): Promise<T> {
    const { after, ticket } = opts ?? {};
    const before = after?.handle === undefined ? undefined : this.queued.get(after.handle);
    if (after?.settled && before === undefined) {
      const settled = followed(after).then(() => this.write(run));
      ticket?.take(settled, undefined);
      return settled;
    }
    let resolve!: (value: unknown) => void;
    let reject!: (err: unknown) => void;
    const settled = new Promise<T>((res, rej) => {
      resolve = res as (value: unknown) => void;
      reject = rej;
    });
    const pending: PendingWrite = { run, resolve, reject, after: after?.settled ? before : undefined, outcome: undefined };
    // Before the write is queued: a ticket another write took refuses this one.
    ticket?.take(settled, pending);
    this.queued.set(pending, pending);
    this.queue.push(pending);
    if (this.retry === null) this.scheduled ??= setImmediate(() => this.flush());
    return settled;
  }

  /** Commits (or refuses) every write asked for so far at once, waiting out a busy file as a batch does. */
  async finish(): Promise<void> {
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = null;
    for (;;) {
      if (this.retry) clearTimeout(this.retry);
      this.flush();
      if (this.retry === null) return;
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  private flush(): void {
    this.scheduled = null;
    this.retry = null;
    const writes = this.queue;
    this.queue = [];
    if (writes.length === 0) return;
    let outcomes: Outcome[];
    try {
      outcomes = this.batch.immediate(writes);
    } catch (err) {
      // Rolled back: nothing of the batch is written, whatever its savepoints said.
      for (const w of writes) w.outcome = { ok: false, err };
      if (isBusy(err)) {
        this.busy ??= { since: performance.now(), tries: 0 };
        if (performance.now() - this.busy.since < this.busyRetryMs) {
          this.queue = writes;
          this.retry = setTimeout(() => this.flush(), busyPauseMs(++this.busy.tries));
          return;
        }
      }
      this.busy = null;
      for (const w of writes) settle(w, { ok: false, err });
      return;
    }
    this.busy = null;
    this.counted.commits++;
    this.counted.writes += writes.length;
    outcomes.forEach((o, i) => settle(writes[i]!, o));
  }
}

function settle(w: PendingWrite, o: Outcome): void {
  w.run = SETTLED;
  w.after = undefined;
  if (o.ok) w.resolve(o.value);
  else w.reject(o.err);
}
