import { FLUX_KUSTOMIZATION, type ClusterClient, type K8sObject } from '../cluster/client.js';
import { NoKindError } from '../cluster/errors.js';
import type { LiveKustomization, LiveSource } from '../status/conditions.js';

const SOURCE_KINDS = ['GitRepository', 'OCIRepository', 'Bucket', 'ExternalArtifact'] as const;
const SOURCE_API = 'source.toolkit.fluxcd.io/v1';

/**
 * The live Kustomizations and sources, kept current by surviving list-watches. `changed()` resolves on the next
 * update, so waiters react at once instead of polling.
 */
export class LiveState {
  readonly kustomizations = new Map<string, LiveKustomization>();
  readonly sources = new Map<string, LiveSource>();
  private synced = false;
  private wakers: (() => void)[] = [];
  private failure: unknown;

  constructor(private readonly client: ClusterClient, private readonly signal: AbortSignal) {}

  /** Starts the watches and resolves after the first full list of Kustomizations. */
  async start(): Promise<void> {
    void this.follow({ ...FLUX_KUSTOMIZATION }, (snap) => replace(this.kustomizations, snap as Map<string, LiveKustomization>), true);
    for (const kind of SOURCE_KINDS) {
      void this.follow({ apiVersion: SOURCE_API, kind }, (snap) => {
        for (const k of [...this.sources.keys()]) if (k.startsWith(`${kind}/`)) this.sources.delete(k);
        for (const [key, o] of snap) this.sources.set(`${kind}/${key}`, o as LiveSource);
      });
    }
    while (!this.synced) {
      if (this.failure) throw this.failure;
      await this.changed();
    }
  }

  /** Resolves on the next change, or after `ms` (so callers can check their timers). */
  changed(ms = 60_000): Promise<void> {
    return new Promise((resolve) => {
      // Every way out removes the listener and the waker: a wait that times out (a quiet minute during an API server
      // restart) must not leave them behind, or a long run piles listeners up on the signal
      // (MaxListenersExceededWarning on stderr).
      const done = () => {
        clearTimeout(t);
        this.signal.removeEventListener('abort', done);
        this.wakers = this.wakers.filter((w) => w !== done);
        resolve();
      };
      const t = setTimeout(done, ms);
      this.signal.addEventListener('abort', done, { once: true });
      this.wakers.push(done);
    });
  }

  /** The source a Kustomization reads, keyed `Kind/namespace/name`. */
  sourceOf(ks: LiveKustomization | undefined, fallback: { kind: string; name: string; namespace: string }): LiveSource | undefined {
    const ref = ks?.spec?.sourceRef;
    const kind = ref?.kind ?? fallback.kind;
    const ns = ref?.namespace ?? ks?.metadata.namespace ?? fallback.namespace;
    return this.sources.get(`${kind}/${ns}/${ref?.name ?? fallback.name}`);
  }

  private wake(): void {
    const w = this.wakers;
    this.wakers = [];
    w.forEach((f) => f());
  }

  private async follow(kind: { apiVersion: string; kind: string }, apply: (snap: Map<string, K8sObject>) => void, primary = false): Promise<void> {
    try {
      for await (const snap of this.client.observe(kind, this.signal)) {
        apply(snap);
        if (primary) this.synced = true;
        this.wake();
      }
    } catch (e) {
      // A source kind whose CRD is not installed (OCIRepository on a minimal install) simply has no objects.
      if (e instanceof NoKindError && !primary) return;
      if (this.signal.aborted) return;
      this.failure = e;
      this.wake();
    }
  }

  /** Rethrows a watch failure (the primary watch gave up), so waiters do not wait forever. */
  check(): void {
    if (this.failure) throw this.failure;
  }
}

function replace<V>(target: Map<string, V>, snap: Map<string, V>): void {
  target.clear();
  for (const [k, v] of snap) target.set(k, v);
}
