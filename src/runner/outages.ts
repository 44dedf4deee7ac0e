import type { ClusterClient, Reachability } from '../cluster/client.js';
import { humanDuration } from '../status/durations.js';
import type { Emit } from './events.js';

const clock = (ms: number): string => new Date(ms).toTimeString().slice(0, 8);

/**
 * Says when the API server goes away and comes back (from the client's reachability, which every request and watch
 * feeds), and remembers it, so that a wait that runs out names the outage instead of blaming Flux.
 */
export class OutageLog {
  private readonly outages: { from: number; to: number | null; error: string | null }[] = [];
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly client: ClusterClient,
    private readonly emit: Emit,
    private readonly now: () => number = Date.now,
  ) {}

  start(): void {
    this.unsubscribe = this.client.onReachability((r: Reachability) => {
      if (!r.reachable) {
        this.outages.push({ from: r.since, to: null, error: r.error });
        this.emit({ type: 'log', level: 'warn', message: `cluster unreachable since ${clock(r.since)}${r.error ? ` (${r.error})` : ''}, retrying` });
        return;
      }
      const open = this.outages.at(-1);
      if (open && open.to === null) {
        open.to = r.since;
        this.emit({ type: 'log', level: 'info', message: `cluster reachable again at ${clock(r.since)} (unreachable for ${humanDuration(open.to - open.from)})` });
      }
    });
  }

  stop(): void {
    this.unsubscribe?.();
  }

  /** A clause for a failure message: the outage going on now, or those since `since`; '' when there were none. */
  phrase(since = 0): string {
    const open = this.outages.at(-1);
    if (open && open.to === null) return `the API server has been unreachable since ${clock(open.from)}${open.error ? ` (${open.error})` : ''}`;
    const during = this.outages.filter((o) => (o.to ?? this.now()) >= since);
    if (during.length === 0) return '';
    const total = during.reduce((n, o) => n + ((o.to ?? this.now()) - Math.max(o.from, since)), 0);
    return `the API server was unreachable for ${humanDuration(total)} meanwhile`;
  }
}
