import type { ClusterClient, Reachability } from '../cluster/client.js';
import { humanDuration } from '../status/durations.js';
import type { Emit } from './events.js';

const clock = (ms: number): string => new Date(ms).toTimeString().slice(0, 8);
/** What the time after "since" is, and the error that told it. */
const sinceWhat = (lastAnswer: boolean, error: string | null): string => [lastAnswer ? 'its last answer' : '', error ?? ''].filter(Boolean).join('; ');

/**
 * Says when the API server goes away and comes back (from the client's reachability, which every request and watch
 * feeds), and remembers it, so that a wait that runs out names the outage instead of blaming Flux. An outage is
 * measured from the last answer the server gave, not from the first request that failed (which may come seconds
 * later), and each fact is said once: gone, then back. A server that never answered this run has not gone away: the
 * request that found it so ends the run with its own error, and nothing here says "retrying" beside it.
 */
export class OutageLog {
  private readonly outages: { from: number; to: number | null; error: string | null; said: boolean }[] = [];
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly client: ClusterClient,
    private readonly emit: Emit,
    private readonly now: () => number = Date.now,
  ) {}

  start(): void {
    this.unsubscribe = this.client.onReachability((r: Reachability) => {
      if (!r.reachable) {
        const said = r.answered;
        this.outages.push({ from: r.answered ? r.lastOk : r.since, to: null, error: r.error, said });
        if (said) this.emit({ type: 'log', level: 'warn', message: `cluster unreachable since ${clock(r.lastOk)} (${sinceWhat(true, r.error)}), retrying` });
        return;
      }
      const open = this.outages.at(-1);
      if (open && open.to === null) {
        open.to = r.since;
        if (open.said) this.emit({ type: 'log', level: 'info', message: `cluster reachable again at ${clock(r.since)} (unreachable for ${humanDuration(open.to - open.from)})` });
      }
    });
  }

  stop(): void {
    this.unsubscribe?.();
  }

  /** A clause for a failure message: the outage going on now, or those since `since`; '' when there were none. */
  phrase(since = 0): string {
    const open = this.outages.at(-1);
    if (open && open.to === null) return `the API server has been unreachable since ${clock(open.from)}${open.said || open.error ? ` (${sinceWhat(open.said, open.error)})` : ''}`;
    const during = this.outages.filter((o) => (o.to ?? this.now()) >= since);
    if (during.length === 0) return '';
    const total = during.reduce((n, o) => n + ((o.to ?? this.now()) - Math.max(o.from, since)), 0);
    return `the API server was unreachable for ${humanDuration(total)} meanwhile`;
  }
}
