// The first thing a run asks the API server (preflight's question) is waited for in sight and within a bound. A
// server that accepts connections and never answers (a VIP or load balancer with no live API server behind it, a
// control plane that hangs) used to hold the run for a request's whole timeout with only "Preflight" on the screen,
// and a Ctrl-C then said nothing of what it cut short.

import type { ClusterClient } from '../cluster/client.js';
import { CliError } from '../model/errors.js';
import { humanDuration } from '../status/durations.js';
import type { Clock } from './clock.js';
import { abortError, InterruptedError } from './errors.js';

/**
 * How long the API server has to answer anything at all (README "Exit codes"; STANDUP_CONNECT_TIMEOUT overrides
 * it): client-go's TLS handshake timeout. A server that answered once is waited on for its requests' own timeouts.
 */
export const CONNECT_TIMEOUT_MS = 10_000;

/** A healthy server answers well within this; only a slower one has the run say what it is waiting on. */
const QUIET_MS = 300;

export interface FirstAnswerOptions {
  client: Pick<ClusterClient, 'reachability'>;
  server: string;
  context: string;
  /** The bound on the first answer (CONNECT_TIMEOUT_MS unless overridden). */
  connectMs: number;
  /** The run's signal: Ctrl-C, or --timeout. */
  signal: AbortSignal;
  clock: Clock;
  /** Shows what the run is waiting on (the step's status line). */
  say: (line: string) => void;
}

/**
 * The answer to `asked`, the first question of a run: said to be awaited after a moment, given up with API_UNREACHABLE
 * when the server has answered nothing within `connectMs`, and ended by Ctrl-C with what it was doing. Reads only.
 */
export async function firstAnswer<T>(asked: Promise<T>, o: FirstAnswerOptions): Promise<T> {
  const settled = new AbortController();
  void asked.then(() => settled.abort(), () => settled.abort());
  const wake = AbortSignal.any([settled.signal, o.signal]);
  await o.clock.sleep(QUIET_MS, wake);
  if (!wake.aborted) o.say(`connecting to ${o.server} (context ${o.context})…`);
  await o.clock.sleep(Math.max(0, o.connectMs - QUIET_MS), wake);
  if (o.signal.aborted) throw stopped(o);
  // Anything the server said (an error status too) proves it is there: its requests' own timeouts bound the rest.
  if (!settled.signal.aborted && !o.client.reachability().answered) throw noAnswer(o);
  return untilStopped(asked, o);
}

/** `asked`, unless the run is stopped first. */
async function untilStopped<T>(asked: Promise<T>, o: FirstAnswerOptions): Promise<T> {
  let onAbort = (): void => undefined;
  const abort = new Promise<never>((_, reject) => {
    onAbort = () => reject(stopped(o));
    o.signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([asked, abort]);
  } finally {
    o.signal.removeEventListener('abort', onAbort);
  }
}

/** Ctrl-C names the server it cut short; --timeout (its own words name the step and its line) stays itself. */
function stopped(o: FirstAnswerOptions): CliError {
  const stop = abortError(o.signal);
  return stop instanceof InterruptedError ? new InterruptedError(stop.hint, stop.why, `connecting to ${o.server} (context ${o.context})`) : stop;
}

function noAnswer(o: FirstAnswerOptions): CliError {
  return new CliError('API_UNREACHABLE', `cannot reach the API server of context ${o.context} (${o.server}): no answer in ${humanDuration(o.connectMs)}`, {
    hint: `Nothing was written. Check that the server answers (\`kubectl --context ${o.context} get --raw /readyz\`) and, behind a VIP or load balancer, `
      + 'that a live API server is in its pool; for another cluster, pass --context or --kubeconfig. STANDUP_CONNECT_TIMEOUT=30s waits longer.',
  });
}
