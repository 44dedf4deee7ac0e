import { ClusterError } from '../cluster/errors.js';
import { realDelay } from '../cluster/watch.js';
import { abortError } from './errors.js';

const TRANSIENT = new Set(['Unreachable', 'Timeout', 'Conflict']);

/**
 * Retries an idempotent write (an annotation, a suspend patch) while the API server is briefly away, as during a
 * control-plane restart: 0.5 s doubling to 5 s, for up to `budgetMs`. Anything else is thrown at once; an abort ends
 * the wait at once.
 */
export async function retryTransient<T>(fn: () => Promise<T>, signal: AbortSignal, budgetMs = 60_000): Promise<T> {
  const deadline = Date.now() + budgetMs;
  for (let wait = 500; ; wait = Math.min(wait * 2, 5000)) {
    if (signal.aborted) throw abortError(signal);
    try {
      return await fn();
    } catch (e) {
      if (!(e instanceof ClusterError) || !TRANSIENT.has(e.reason) || Date.now() + wait > deadline) throw e;
    }
    await realDelay(wait, signal);
  }
}
