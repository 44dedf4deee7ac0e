import { setTimeout as sleep } from 'node:timers/promises';
import { TimeoutError } from './errors.js';

export interface PollOptions {
  timeoutMs: number;
  intervalMs?: number;
  /** Rejects early, e.g. when the process being waited on has exited. */
  abort?: () => string | undefined;
}

/**
 * Polls `probe` until it returns a value other than undefined. Errors thrown by
 * the probe count as "not yet" (servers refuse connections while starting);
 * the last one ends up in the timeout message.
 */
export async function pollUntil<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  { timeoutMs, intervalMs = 250, abort }: PollOptions,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: string | undefined;
  for (;;) {
    const aborted = abort?.();
    if (aborted) throw new TimeoutError(what, timeoutMs, aborted);
    try {
      const v = await probe();
      if (v !== undefined) return v;
      last = undefined;
    } catch (e) {
      last = e instanceof Error ? e.message : String(e);
    }
    if (Date.now() > deadline) throw new TimeoutError(what, timeoutMs, last);
    await sleep(intervalMs);
  }
}
