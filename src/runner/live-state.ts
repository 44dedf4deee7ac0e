import { getMaxListeners, setMaxListeners } from 'node:events';
import { FLUX_HELM_RELEASE, FLUX_KUSTOMIZATION, FLUX_SOURCE_API, type ClusterClient, type K8sObject, type KindRef } from '../cluster/client.js';
import { NoKindError } from '../cluster/errors.js';
import { refKey, type NamespacedRef, type ObjRef } from '../model/ref.js';
import type { LiveKustomization, LiveSource } from '../status/conditions.js';
import type { LiveHelmRelease } from '../status/helm-source.js';
import { sightingOf, type SourceSighting } from '../status/source-writers.js';
import { systemClock, type Clock } from './clock.js';
import { abortError } from './errors.js';

/** The source kinds always watched (`sources`). */
export const SOURCE_KINDS: readonly string[] = ['GitRepository', 'OCIRepository', 'Bucket', 'ExternalArtifact'];

/** How often the API server is probed when nothing has been heard from it (a hung server keeps watches silent). */
const PROBE_AFTER_MS = 5000;

/**
 * How long a watch started on demand may take to list before what it would show counts as unreadable: a tier that
 * needs it (to explain its failure, say) does not wait on an API server that is away.
 */
export const LIST_PATIENCE_MS = 10_000;

/** A kind to watch on demand: all namespaces, one namespace, or the objects one label selector picks. */
export interface WatchedKind extends KindRef {
  labelSelector?: string;
}

/**
 * What the watches show of a kind (LiveState.watched): its objects; undefined while its watch is still listing; null
 * when it cannot be read.
 */
export type Look = (kind: WatchedKind) => ReadonlyMap<string, K8sObject> | null | undefined;

interface OnDemand {
  /** null until the first list. */
  objects: ReadonlyMap<string, K8sObject> | null;
  startedAt: number;
  unreadable: boolean;
}

/**
 * The live Kustomizations, sources and HelmReleases (what helm-requester.ts asks about, and what a tier's health check
 * waits on), kept current by surviving list-watches, and the other kinds a wait needs only sometimes, watched from
 * the first time they are asked for (`watched`). `changed()` resolves on the next update, so waiters react at once
 * instead of polling. While nothing arrives it probes the API server, so an outage is noticed within seconds (the
 * client reports it through `onReachability`).
 */
export class LiveState {
  readonly kustomizations = new Map<string, LiveKustomization>();
  readonly sources = new Map<string, LiveSource>();
  /** By `namespace/name`; empty where helm-controller's CRDs are not installed. */
  readonly helmReleases = new Map<string, LiveHelmRelease>();
  /** Counts the updates seen so far: a waiter that looked at version N is woken at once by any update after it. */
  private updates = 0;
  private readonly pending = new Set<string>();
  private readonly onDemand = new Map<string, OnDemand>();
  private wakers: (() => void)[] = [];
  private failure: unknown;
  private readonly history = new Map<string, SourceSighting[]>();
  private readonly firstSight = new Map<string, string | null>();

  constructor(
    private readonly client: ClusterClient,
    private readonly signal: AbortSignal,
    private readonly clock: Clock = systemClock,
  ) {
    // Every watch listens on the run's signal: the Flux kinds, and the Nodes, Deployments and pods a tier's health
    // check waits on. More than Node's default of 10 is expected here, not a leak (its warning would reach the screen).
    setMaxListeners(Math.max(getMaxListeners(signal), 100), signal);
  }

  /**
   * Starts the watches and resolves once the kinds in `needed` (default: every one) have listed (a kind without a CRD
   * counts as listed, empty); the others go on listing and update the state when they arrive. A fresh CRD's first
   * LIST can be answered 429 "retry after 1 s" while the API server's cache for it fills: a run whose tiers read
   * only GitRepositories need not wait that second for the Buckets.
   */
  async start(needed?: ReadonlySet<string>): Promise<void> {
    const kinds = [{ ...FLUX_KUSTOMIZATION }, ...SOURCE_KINDS.map((kind) => ({ apiVersion: FLUX_SOURCE_API, kind }))];
    for (const k of [...kinds, FLUX_HELM_RELEASE]) this.pending.add(k.kind);
    void this.follow(kinds[0]!, (snap) => {
      replace(this.kustomizations, snap as Map<string, LiveKustomization>);
      // Every Kustomization names its sourceRef (the CRD requires it), so sourceOf's fallback is never used here.
      for (const [key, ks] of this.kustomizations) {
        if (!this.firstSight.has(key)) this.firstSight.set(key, this.sourceOf(ks, { kind: '', namespace: '', name: '' })?.status?.artifact?.revision ?? null);
      }
    }, true);
    void this.follow(FLUX_HELM_RELEASE, (snap) => replace(this.helmReleases, snap as unknown as Map<string, LiveHelmRelease>));
    for (const k of kinds.slice(1)) {
      void this.follow(k, (snap) => {
        for (const key of [...this.sources.keys()]) if (key.startsWith(`${k.kind}/`)) this.sources.delete(key);
        for (const o of snap.values()) this.sources.set(refKey(refOfLive(k.kind, o)), { ...(o as LiveSource), kind: k.kind });
        this.see(k.kind, snap);
      });
    }
    void this.probeWhileQuiet();
    while ([...this.pending].some((k) => !needed || needed.has(k))) {
      this.check();
      await this.changed();
    }
  }

  /** The number of updates so far, to pass to `changed` after looking. */
  get version(): number {
    return this.updates;
  }

  /**
   * Resolves on the next change, or after `ms` (so callers can check their timers); at once when aborted, and at once
   * when an update came after `since` (what the caller last looked at), so none arriving while it acted is missed.
   */
  changed(ms = 60_000, since = this.updates): Promise<void> {
    if (this.signal.aborted) return Promise.reject(abortError(this.signal));
    if (this.updates !== since) return Promise.resolve();
    return new Promise((resolve) => {
      // Every way out removes the listener, the waker and the timer: a wait that times out (a quiet minute during an
      // API server restart) must not leave them behind, or a long run piles listeners up on the signal
      // (MaxListenersExceededWarning on stderr).
      const timer = new AbortController();
      let settled = false;
      const done = () => {
        if (settled) return;
        settled = true;
        timer.abort();
        this.signal.removeEventListener('abort', done);
        this.wakers = this.wakers.filter((w) => w !== done);
        resolve();
      };
      void this.clock.sleep(ms, timer.signal).then(done);
      this.signal.addEventListener('abort', done, { once: true });
      this.wakers.push(done);
    });
  }

  /** The source a Kustomization reads, keyed `Kind/namespace/name`. */
  sourceOf(ks: LiveKustomization | undefined, fallback: NamespacedRef): LiveSource | undefined {
    const ref = ks?.spec?.sourceRef;
    const kind = ref?.kind ?? fallback.kind;
    const namespace = ref?.namespace ?? ks?.metadata.namespace ?? fallback.namespace;
    return this.sources.get(refKey({ kind, namespace, name: ref?.name ?? fallback.name }));
  }

  /**
   * The artifact revision a Kustomization's source had when this run first saw the Kustomization (null: none yet;
   * undefined: not seen). A revision that arrives later makes kustomize-controller queue it on its own (its source
   * watch, SourceRevisionChangePredicate); one that was there already does not.
   */
  sourceRevisionAtFirstSight(key: string): string | null | undefined {
    return this.firstSight.get(key);
  }

  /**
   * The objects of a kind (keyed `namespace/name`, or `name` when cluster-scoped), from a watch started on the first
   * ask and kept for the rest of the run. undefined until its first list arrives; null when it cannot be read (RBAC,
   * or not listed within LIST_PATIENCE_MS). A kind the cluster does not serve has no objects.
   */
  watched(kind: WatchedKind): ReadonlyMap<string, K8sObject> | null | undefined {
    const key = `${kind.apiVersion} ${kind.kind} ${kind.namespace ?? ''} ${kind.labelSelector ?? ''}`;
    let w = this.onDemand.get(key);
    if (!w) {
      this.onDemand.set(key, (w = { objects: null, startedAt: this.clock.now(), unreadable: false }));
      void this.followOnDemand(kind, w);
    }
    if (w.unreadable) return null;
    if (w.objects) return w.objects;
    return this.clock.now() - w.startedAt >= LIST_PATIENCE_MS ? null : undefined;
  }

  /** Every distinct spec generation of a source seen during this run, oldest first. */
  sightings(ref: ObjRef): readonly SourceSighting[] {
    return this.history.get(refKey(ref)) ?? [];
  }

  /** Rethrows a watch failure (the primary watch gave up), and an abort, so waiters do not wait forever. */
  check(): void {
    if (this.signal.aborted) throw abortError(this.signal);
    if (this.failure) throw this.failure;
  }

  private see(kind: string, snap: Map<string, K8sObject>): void {
    for (const o of snap.values()) {
      const id = refKey(refOfLive(kind, o));
      const list = this.history.get(id) ?? [];
      const s = sightingOf(o as Parameters<typeof sightingOf>[0], this.clock.now());
      if (list.at(-1)?.generation !== s.generation) this.history.set(id, [...list.slice(-20), s]);
    }
  }

  private async probeWhileQuiet(): Promise<void> {
    while (!this.signal.aborted) {
      await this.clock.sleep(1000, this.signal);
      const r = this.client.reachability();
      if (this.signal.aborted || this.clock.now() - r.lastOk < PROBE_AFTER_MS) continue;
      try {
        await this.client.serverVersion({ timeoutMs: 4000 });
      } catch {
        // The client has recorded the outage; the watches keep reconnecting.
      }
    }
  }

  private wake(): void {
    this.updates++;
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

  /** An on-demand watch never fails the run: what it cannot read, it says nothing about. */
  private async followOnDemand(kind: WatchedKind, w: OnDemand): Promise<void> {
    const { labelSelector, ...k } = kind;
    try {
      for await (const snap of this.client.observe(k, this.signal, labelSelector ? { labelSelector } : {})) {
        w.objects = snap;
        this.wake();
      }
    } catch (e) {
      if (this.signal.aborted) return;
      if (e instanceof NoKindError) w.objects = new Map();
      else w.unreadable = true;
      this.wake();
    }
  }
}

/** A listed object's reference: items of a LIST carry no kind, so the kind listed is given. */
const refOfLive = (kind: string, o: K8sObject): ObjRef => ({ kind, namespace: o.metadata.namespace ?? null, name: o.metadata.name });

function replace<V>(target: Map<string, V>, snap: Map<string, V>): void {
  target.clear();
  for (const [k, v] of snap) target.set(k, v);
}
