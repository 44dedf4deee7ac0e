import { realDelay } from '../cluster/watch.js';

/**
 * Time as the runner sees it: every deadline, backoff and pause goes through one, so unit tests drive it with a fake
 * clock instead of waiting on real timers.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Resolves after `ms`, or at once (without error) when `signal` aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

export const systemClock: Clock = { now: () => Date.now(), sleep: realDelay };
