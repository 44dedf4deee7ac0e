// Whether the API server answers, as the client saw it: every request and watch connection reports here. A run
// that waits for minutes must say within seconds that the cluster went away, not only when a timeout ends it.

/** The client's view of the API server. `since`: when it last changed (ms since epoch). */
export interface Reachability {
  reachable: boolean;
  since: number;
  /** The first error of the current outage (`ECONNREFUSED`, a timeout), or null while reachable. */
  error: string | null;
  /** When a request or watch last succeeded (ms since epoch; before the first answer, when tracking began). */
  lastOk: number;
  /** Some request or watch has succeeded: the API server answered at least once. */
  answered: boolean;
}

export type ReachabilityListener = (r: Reachability) => void;

/** Collects outcomes into a Reachability and tells listeners on each change (not on every request). */
export class ReachabilityTracker {
  private state: Reachability;
  private readonly listeners = new Set<ReachabilityListener>();

  constructor(private readonly now: () => number = Date.now) {
    const t = now();
    this.state = { reachable: true, since: t, error: null, lastOk: t, answered: false };
  }

  get(): Reachability {
    return { ...this.state };
  }

  ok(): void {
    const t = this.now();
    const was = this.state.reachable;
    this.state = was ? { ...this.state, lastOk: t, answered: true } : { reachable: true, since: t, error: null, lastOk: t, answered: true };
    if (!was) this.notify();
  }

  failed(error: string): void {
    if (!this.state.reachable) return;
    this.state = { ...this.state, reachable: false, since: this.now(), error };
    this.notify();
  }

  subscribe(fn: ReachabilityListener): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private notify(): void {
    for (const l of this.listeners) l(this.get());
  }
}
