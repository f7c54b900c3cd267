// Time is injected: the service reads the system clock, tests and the dev listener move a manual one.

export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that starts at the system time and can be moved forward (dev listener, tests). */
export class ManualClock implements Clock {
  private offset = 0;
  constructor(private readonly base: Clock = systemClock, private fixed: number | null = null) {}
  now(): number {
    return this.fixed ?? this.base.now() + this.offset;
  }
  /** How far the clock was moved from its base (0 for a clock set to a fixed time). */
  get offsetMs(): number {
    return this.offset;
  }
  advance(ms: number): void {
    if (this.fixed !== null) this.fixed += ms;
    else this.offset += ms;
  }
  set(at: number): void {
    this.fixed = at;
  }
}
