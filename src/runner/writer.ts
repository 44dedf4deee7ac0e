import type { ClusterClient } from '../cluster/client.js';
import { ClusterError } from '../cluster/errors.js';
import { systemClock, type Clock } from './clock.js';
import { abortError } from './errors.js';
import type { Emit, StepId } from './events.js';

/** What a write needs: the client, the step its change events belong to, the run's signal and clock, --dry-run. */
export interface Writer {
  client: ClusterClient;
  emit: Emit;
  id: StepId;
  signal: AbortSignal;
  clock?: Clock;
  dryRun?: boolean;
}

/** The API server away or not answering: heals when it is back, which only the run's own deadline waits out. */
const OUTAGE = new Set(['Unreachable', 'Timeout']);

/**
 * Retries an idempotent write (an annotation, a suspend patch): 0.5 s doubling to 5 s. While the API server is away
 * (refused, timed out) it retries until the run's signal ends it (Ctrl-C, --timeout): the outage is the run's to
 * report, and a budget of the write's own would end the run with "cannot reach" just before the --timeout that
 * names the outage. A conflict is retried for up to `budgetMs`; anything else is thrown at once.
 */
export async function retryTransient<T>(fn: () => Promise<T>, signal: AbortSignal, clock: Clock = systemClock, budgetMs = 60_000): Promise<T> {
  const deadline = clock.now() + budgetMs;
  for (let wait = 500; ; wait = Math.min(wait * 2, 5000)) {
    if (signal.aborted) throw abortError(signal);
    try {
      return await fn();
    } catch (e) {
      if (!(e instanceof ClusterError)) throw e;
      if (signal.aborted) throw abortError(signal);
      const outage = OUTAGE.has(e.reason);
      if (!outage && (e.reason !== 'Conflict' || clock.now() + wait > deadline)) throw e;
    }
    await clock.sleep(wait, signal);
  }
}
