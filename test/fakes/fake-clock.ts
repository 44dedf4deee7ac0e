// The one fake clock for unit tests: time stands still while anything else can run, and moves to the next timer only
// when every promise chain has settled, so a test of minutes of waiting takes milliseconds and never depends on how
// busy the machine is.

import type { Clock } from '../../src/runner/clock.js';

interface Timer {
  at: number;
  fire: () => void;
}

export class FakeClock implements Clock {
  private t: number;
  private timers: Timer[] = [];
  private advancing = false;

  /** `limitMs`: how far time may run at most (a run left waiting by mistake ends the test instead of spinning). */
  constructor(start = Date.parse('2026-01-01T00:00:00Z'), private readonly limitMs = 24 * 3_600_000) {
    this.t = start;
    this.limit = start + limitMs;
  }

  private readonly limit: number;

  now = (): number => this.t;

  sleep = (ms: number, signal: AbortSignal): Promise<void> =>
    new Promise<void>((resolve) => {
      if (signal.aborted) return resolve();
      const timer: Timer = {
        at: this.t + Math.max(0, ms),
        fire: () => {
          signal.removeEventListener('abort', cancel);
          resolve();
        },
      };
      const cancel = () => {
        this.timers = this.timers.filter((x) => x !== timer);
        resolve();
      };
      signal.addEventListener('abort', cancel, { once: true });
      this.timers.push(timer);
      void this.advance();
    });

  /** Runs `fn` when the clock reaches now + `ms` (what another actor does meanwhile). */
  at(ms: number, fn: () => void): void {
    void this.sleep(ms, new AbortController().signal).then(fn);
  }

  /** Moves time to each next timer once nothing else is left to run. */
  private async advance(): Promise<void> {
    if (this.advancing) return;
    this.advancing = true;
    try {
      for (;;) {
        // Let every pending promise chain (the fake cluster's watches, the runner's awaits) run first.
        for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
        if (this.timers.length === 0) return;
        const next = Math.min(...this.timers.map((x) => x.at));
        if (next > this.limit) throw new Error(`fake clock: nothing happened within ${this.limitMs} ms`);
        this.t = Math.max(this.t, next);
        const due = this.timers.filter((x) => x.at <= this.t);
        this.timers = this.timers.filter((x) => x.at > this.t);
        for (const x of due) x.fire();
      }
    } finally {
      this.advancing = false;
    }
  }
}
