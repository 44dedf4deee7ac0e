import { FLUX_HELM_RELEASE, FLUX_KUSTOMIZATION, FLUX_SOURCE_API, type ClusterClient, type K8sObject } from '../cluster/client.js';
import { NoKindError } from '../cluster/errors.js';
import type { LiveKustomization, LiveSource } from '../status/conditions.js';
import type { LiveHelmRelease } from '../status/helm-source.js';
import { sightingOf, type SourceSighting } from '../status/source-writers.js';
import { abortError } from './errors.js';

const SOURCE_KINDS = ['GitRepository', 'OCIRepository', 'Bucket', 'ExternalArtifact'] as const;

/** How often the API server is probed when nothing has been heard from it (a hung server keeps watches silent). */
const PROBE_AFTER_MS = 5000;

/**
 * The live Kustomizations, sources and HelmReleases (what helm-requests.ts asks about, and what a tier's health check
 * waits on), kept current by surviving
 * list-watches. `changed()` resolves on the next
 * update, so waiters react at once instead of polling. While nothing arrives it probes the API server, so an outage
 * is noticed within seconds (the client reports it through `onReachability`).
 */
export class LiveState {
  readonly kustomizations = new Map<string, LiveKustomization>();
  readonly sources = new Map<string, LiveSource>();
  /** By `namespace/name`; empty where helm-controller's CRDs are not installed. */
  readonly helmReleases = new Map<string, LiveHelmRelease>();
  private readonly pending = new Set<string>();
  private wakers: (() => void)[] = [];
  private failure: unknown;
  private readonly history = new Map<string, SourceSighting[]>();
  private probe: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly client: ClusterClient,
    private readonly signal: AbortSignal,
    private readonly now: () => number = Date.now,
  ) {}

  /** Starts the watches and resolves once every one has listed (a kind without a CRD counts as listed, empty). */
  async start(): Promise<void> {
    const kinds = [{ ...FLUX_KUSTOMIZATION }, ...SOURCE_KINDS.map((kind) => ({ apiVersion: FLUX_SOURCE_API, kind }))];
    for (const k of [...kinds, FLUX_HELM_RELEASE]) this.pending.add(k.kind);
    void this.follow(kinds[0]!, (snap) => replace(this.kustomizations, snap as Map<string, LiveKustomization>), true);
    void this.follow(FLUX_HELM_RELEASE, (snap) => replace(this.helmReleases, snap as unknown as Map<string, LiveHelmRelease>));
    for (const k of kinds.slice(1)) {
      void this.follow(k, (snap) => {
        for (const key of [...this.sources.keys()]) if (key.startsWith(`${k.kind}/`)) this.sources.delete(key);
        for (const [key, o] of snap) this.sources.set(`${k.kind}/${key}`, { ...(o as LiveSource), kind: k.kind });
        this.see(k.kind, snap);
      });
    }
    this.probe = setInterval(() => void this.probeIfQuiet(), 1000);
    this.probe.unref?.();
    this.signal.addEventListener('abort', () => clearInterval(this.probe), { once: true });
    while (this.pending.size > 0) {
      this.check();
      await this.changed();
    }
  }

  /** Resolves on the next change, or after `ms` (so callers can check their timers); at once when aborted. */
  changed(ms = 60_000): Promise<void> {
    if (this.signal.aborted) return Promise.reject(abortError(this.signal));
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

  /** Every distinct spec generation of a source seen during this run (`Kind/namespace/name`), oldest first. */
  sightings(key: string): readonly SourceSighting[] {
    return this.history.get(key) ?? [];
  }

  /** Rethrows a watch failure (the primary watch gave up), and an abort, so waiters do not wait forever. */
  check(): void {
    if (this.signal.aborted) throw abortError(this.signal);
    if (this.failure) throw this.failure;
  }

  private see(kind: string, snap: Map<string, K8sObject>): void {
    for (const [key, o] of snap) {
      const id = `${kind}/${key}`;
      const list = this.history.get(id) ?? [];
      const s = sightingOf(o as Parameters<typeof sightingOf>[0], this.now());
      if (list.at(-1)?.generation !== s.generation) this.history.set(id, [...list.slice(-20), s]);
    }
  }

  private async probeIfQuiet(): Promise<void> {
    const r = this.client.reachability();
    if (this.signal.aborted || this.now() - r.lastOk < PROBE_AFTER_MS) return;
    try {
      await this.client.serverVersion({ timeoutMs: 4000 });
    } catch {
      // The client has recorded the outage; the watches keep reconnecting.
    }
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
        this.pending.delete(kind.kind);
        this.wake();
      }
    } catch (e) {
      // A kind whose CRD is not installed (OCIRepository on a minimal install, HelmRelease without helm-controller)
      // simply has no objects.
      if (e instanceof NoKindError && !primary) {
        this.pending.delete(kind.kind);
        this.wake();
        return;
      }
      if (this.signal.aborted) return;
      this.failure = e;
      this.wake();
    }
  }
}

function replace<V>(target: Map<string, V>, snap: Map<string, V>): void {
  target.clear();
  for (const [k, v] of snap) target.set(k, v);
}
