// The one fake ClusterClient for unit tests: objects in a map, server-side apply with created/configured/unchanged,
// merge patches, deletes, observe() snapshots pushed on every change, and kustomize-controller's side scripted by the
// test (`onRequest`, `ready`, `ks`). No HTTP, no timing. Behaviour that talks to the real API is tested against the
// testbed (test/integration); this only makes the runner's own logic fast to test.

import type { ApplyOptions, ApplyResult, ClusterClient, DeleteOptions, K8sObject, KindRef, ListOptions, ObserveOptions, Reachability, RequestStats } from '../../src/cluster/client.js';
import { apiRefOf } from '../../src/cluster/client.js';
import { ApplyError, ClusterError, NoKindError, NotFoundError } from '../../src/cluster/errors.js';
import { ReachabilityTracker } from '../../src/cluster/reachability.js';
import { waitDeleted, waitEstablished } from '../../src/cluster/waits.js';
import { type ApiRef, refKey } from '../../src/model/ref.js';

const keyOf = (r: { kind: string; namespace?: string | null; name: string }) => `${r.kind}/${r.namespace ?? ''}/${r.name}`;
const clone = <T>(x: T): T => structuredClone(x);

function mergePatch(target: unknown, patch: unknown): unknown {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return clone(patch);
  const out: Record<string, unknown> = typeof target === 'object' && target !== null && !Array.isArray(target) ? { ...(target as Record<string, unknown>) } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

export const REVISION = 'main@sha1:' + 'a'.repeat(40);

/** What the fake recorded, in order: every write (not reads), for assertions like "nothing was written". */
export interface FakeWrite {
  verb: 'apply' | 'patch' | 'delete';
  id: string;
  body?: unknown;
}

export class FakeCluster implements ClusterClient {
  readonly context = 'fake';
  readonly server = 'https://fake.invalid:6443';
  readonly objects = new Map<string, K8sObject>();
  readonly writes: FakeWrite[] = [];
  /** Kinds the fake "serves"; undefined = every kind. Others throw NoKindError. */
  servedKinds?: Set<string>;
  /** Called on every requestedAt annotation of a Kustomization (`namespace/name`): decide what the controller does. */
  onRequest: (key: string, ks: K8sObject) => void = () => {};
  readonly reach = new ReachabilityTracker();
  private rv = 1;
  private listeners: (() => void)[] = [];
  private counters: RequestStats = { requests: 0, watches: 0, relists: 0, since: Date.now() };

  constructor(readonly revision = REVISION) {
    this.put({
      apiVersion: 'source.toolkit.fluxcd.io/v1', kind: 'GitRepository', metadata: { name: 'flux-system', namespace: 'flux-system', generation: 1 },
      spec: { url: 'https://git.example/repo.git' },
      status: { observedGeneration: 1, artifact: { revision }, conditions: [{ type: 'Ready', status: 'True', reason: 'Succeeded' }] },
    });
  }

  /** A Kustomization in flux-system: new (no status), Ready at the current revision, or failed with `message`. */
  ks(name: string, state: 'new' | 'ready' | 'failed' = 'new', message = '', reason = 'ReconciliationFailed'): K8sObject {
    const status: Record<string, unknown> =
      state === 'ready' ? { observedGeneration: 1, lastAppliedRevision: this.revision, lastAttemptedRevision: this.revision, conditions: [{ type: 'Ready', status: 'True', reason: 'ReconciliationSucceeded', message: `Applied revision: ${this.revision}` }] }
      : state === 'failed' ? { observedGeneration: -1, lastAttemptedRevision: this.revision, conditions: [{ type: 'Ready', status: 'False', reason, message }] }
      : {};
    return this.put({ apiVersion: 'kustomize.toolkit.fluxcd.io/v1', kind: 'Kustomization', metadata: { name, namespace: 'flux-system', generation: 1, annotations: {} },
      spec: { sourceRef: { kind: 'GitRepository', name: 'flux-system' } }, status });
  }

  /** Marks a Kustomization Ready at the current revision, as KC would after a successful reconcile. */
  ready(name: string, handled?: string): void {
    const o = this.ks(name, 'ready');
    if (handled) (o.status as Record<string, unknown>).lastHandledReconcileAt = handled;
    this.notify();
  }

  /** Says KC handled the request with a failure (the second chance sees it too). */
  fail(name: string, handled: string, message: string, reason = 'ReconciliationFailed'): void {
    const o = this.ks(name, 'failed', message, reason);
    (o.status as Record<string, unknown>).lastHandledReconcileAt = handled;
    this.notify();
  }

  /** The stored Kustomization flux-system/NAME (live: changes show in the next snapshot after notify()). */
  kustomization(name: string): K8sObject | undefined {
    return this.objects.get(`Kustomization/flux-system/${name}`);
  }

  async get(ref: ApiRef): Promise<K8sObject> {
    const o = await this.find(ref);
    if (!o) throw new NotFoundError(ref);
    return o;
  }

  /** Puts an object as another actor would (no write recorded); observers see it. */
  put(o: K8sObject): K8sObject {
    o.metadata.resourceVersion = String(++this.rv);
    this.objects.set(keyOf(apiRefOf(o)), o);
    this.notify();
    return o;
  }

  /** Requests from now on fail as if the API server were away (true), or succeed again (false). */
  set unreachable(away: boolean) {
    this.away = away;
    if (away) this.reach.failed('ECONNREFUSED');
    else this.reach.ok();
  }
  private away = false;

  private served(r: { apiVersion: string; kind: string }) {
    this.counters.requests++;
    if (this.away) throw new ClusterError('Unreachable', `cannot reach the API server ${this.server}: ECONNREFUSED`);
    if (this.servedKinds && !this.servedKinds.has(r.kind)) throw new NoKindError(r.apiVersion, r.kind);
    this.reach.ok();
  }

  stats(): RequestStats {
    return { ...this.counters };
  }

  reachability(): Reachability {
    return this.reach.get();
  }

  onReachability(fn: (r: Reachability) => void): () => void {
    return this.reach.subscribe(fn);
  }

  async serverVersion() {
    this.served({ apiVersion: 'v1', kind: 'Namespace' });
    return { gitVersion: 'v1.36.4-fake' };
  }

  async find(ref: ApiRef): Promise<K8sObject | undefined> {
    this.served(ref);
    const o = this.objects.get(keyOf(ref));
    return o && clone(o);
  }

  async list(kind: KindRef, o: ListOptions = {}): Promise<{ items: K8sObject[]; resourceVersion: string }> {
    this.served(kind);
    return { items: this.select(kind, o.labelSelector).map(clone), resourceVersion: String(this.rv) };
  }

  /** The objects of a kind (in a namespace, picked by a `k=v,k2=v2` selector). */
  private select(kind: KindRef, labelSelector?: string): K8sObject[] {
    const want = labelSelector?.split(',').map((p) => p.split('=')) ?? [];
    return [...this.objects.values()].filter((x) => x.kind === kind.kind && (!kind.namespace || x.metadata.namespace === kind.namespace) && want.every(([k, v]) => x.metadata.labels?.[k!] === v));
  }

  async patchMerge(ref: ApiRef, patch: Record<string, unknown>, o: { dryRun?: boolean; fieldManager?: string } = {}): Promise<K8sObject> {
    this.served(ref);
    const live = this.objects.get(keyOf(ref));
    if (!live) throw new NotFoundError(ref);
    const next = mergePatch(live, patch) as K8sObject;
    if (o.dryRun) return next;
    this.writes.push({ verb: 'patch', id: refKey(ref), body: patch });
    Object.assign(live, next);
    const value = (patch.metadata as { annotations?: Record<string, string | null> } | undefined)?.annotations?.['reconcile.fluxcd.io/requestedAt'];
    if (value && ref.kind !== 'Kustomization') (live.status as Record<string, unknown>).lastHandledReconcileAt = value;
    if (value && ref.kind === 'Kustomization') queueMicrotask(() => this.onRequest(`${ref.namespace}/${ref.name}`, live));
    this.notify();
    return clone(live);
  }

  async delete(ref: ApiRef, o: DeleteOptions = {}): Promise<boolean> {
    this.served(ref);
    if (!this.objects.has(keyOf(ref))) return false;
    if (o.dryRun) return true;
    this.writes.push({ verb: 'delete', id: refKey(ref) });
    this.objects.delete(keyOf(ref));
    this.notify();
    return true;
  }

  async apply(objects: readonly K8sObject[], o: ApplyOptions): Promise<ApplyResult[]> {
    const results: ApplyResult[] = [];
    for (const obj of objects) {
      const ref = apiRefOf(obj);
      try {
        this.served(obj);
      } catch (e) {
        throw new ApplyError(ref, 'dry-run', 'NoKind', (e as Error).message, results);
      }
      const live = this.objects.get(keyOf(ref));
      const next = (live ? mergePatch(live, obj) : clone(obj)) as K8sObject;
      const same = live && JSON.stringify({ ...live, metadata: { ...live.metadata, resourceVersion: '' } }) === JSON.stringify({ ...next, metadata: { ...next.metadata, resourceVersion: '' } });
      const action = !live ? 'created' : same ? 'unchanged' : 'configured';
      if (!o.dryRun && action !== 'unchanged') {
        this.writes.push({ verb: 'apply', id: refKey(ref), body: obj });
        if (obj.kind === 'CustomResourceDefinition') next.status = { conditions: [{ type: 'Established', status: 'True' }] };
        this.put(next);
      }
      results.push({ id: refKey(ref), ref, action });
    }
    return results;
  }

  waitDeleted(ref: ApiRef, o: { timeoutMs?: number; signal?: AbortSignal; pollMs?: number } = {}): Promise<void> {
    return waitDeleted({ find: (r) => this.find(r), delay: (ms) => new Promise((r) => setTimeout(r, Math.min(ms, 5))) }, ref, o);
  }

  waitEstablished(names: readonly string[], o: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<void> {
    return waitEstablished({ find: (r) => this.find(r), delay: (ms) => new Promise((r) => setTimeout(r, Math.min(ms, 5))) }, names, o);
  }

  async *observe(kind: KindRef, signal: AbortSignal, o: ObserveOptions = {}): AsyncIterable<Map<string, K8sObject>> {
    this.counters.watches++;
    while (!signal.aborted) {
      const items = this.select(kind, o.labelSelector).map(clone);
      yield new Map(items.map((i) => [i.metadata.namespace ? `${i.metadata.namespace}/${i.metadata.name}` : i.metadata.name, i]));
      await new Promise<void>((r) => {
        const done = () => {
          signal.removeEventListener('abort', done);
          r();
        };
        this.listeners.push(done);
        signal.addEventListener('abort', done, { once: true });
      });
    }
  }

  notify(): void {
    const l = this.listeners;
    this.listeners = [];
    l.forEach((f) => f());
  }
}
