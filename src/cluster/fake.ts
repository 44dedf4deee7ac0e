// An in-memory ClusterClient for runner and UI tests: objects in a map, apply with created/configured/unchanged,
// merge patches, deletes, and observe() snapshots pushed on every change. Tests script the controllers' side with
// `update()` (e.g. set a Kustomization's Ready condition). No HTTP, no timing: fully deterministic.

import {
  refId,
  refOf,
  type ApplyOptions,
  type ApplyResult,
  type ClusterClient,
  type DeleteOptions,
  type K8sObject,
  type KindRef,
  type ListOptions,
  type ObjectRef,
  type RequestStats,
} from './client.js';
import { ApplyError, NoKindError, NotFoundError } from './errors.js';

const keyOf = (r: { apiVersion: string; kind: string; namespace?: string | null; name: string }) =>
  `${r.apiVersion}|${r.kind}|${r.namespace ?? ''}|${r.name}`;
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

/** What the fake recorded, in order: every write (not reads), for assertions like "nothing was written". */
export interface FakeWrite {
  verb: 'apply' | 'patch' | 'delete';
  id: string;
  body?: unknown;
}

export class FakeClusterClient implements ClusterClient {
  readonly objects = new Map<string, K8sObject>();
  readonly writes: FakeWrite[] = [];
  /** Kinds the fake "serves" (`apiVersion|Kind`); undefined = every kind. Others throw NoKindError. */
  servedKinds?: Set<string>;
  private rv = 1;
  private counters: RequestStats = { requests: 0, watches: 0, relists: 0, since: Date.now() };
  private listeners = new Set<() => void>();

  constructor(
    readonly context = 'fake',
    readonly server = 'https://fake.invalid:6443',
  ) {}

  /** Puts an object as another actor would (no write recorded), bumping its resourceVersion; observers see it. */
  set(o: K8sObject): K8sObject {
    const stored = clone(o);
    stored.metadata.resourceVersion = String(++this.rv);
    stored.metadata.generation ??= 1;
    this.objects.set(keyOf(refOf(stored)), stored);
    this.changed();
    return stored;
  }

  /** Mutates a stored object in place (the controller's side: status, conditions) and notifies observers. */
  update(ref: ObjectRef, fn: (o: K8sObject) => void): K8sObject {
    const o = this.objects.get(keyOf(ref));
    if (!o) throw new NotFoundError(ref);
    fn(o);
    o.metadata.resourceVersion = String(++this.rv);
    this.changed();
    return o;
  }

  private changed() {
    for (const l of this.listeners) l();
  }

  private served(r: { apiVersion: string; kind: string }) {
    this.counters.requests++;
    if (this.servedKinds && !this.servedKinds.has(`${r.apiVersion}|${r.kind}`)) throw new NoKindError(r.apiVersion, r.kind);
  }

  stats(): RequestStats {
    return { ...this.counters };
  }

  async serverVersion() {
    this.counters.requests++;
    return { gitVersion: 'v1.36.4-fake' };
  }

  async get(ref: ObjectRef): Promise<K8sObject> {
    const o = await this.find(ref);
    if (!o) throw new NotFoundError(ref);
    return o;
  }

  async find(ref: ObjectRef): Promise<K8sObject | undefined> {
    this.served(ref);
    const o = this.objects.get(keyOf(ref));
    return o && clone(o);
  }

  async list(kind: KindRef, o: ListOptions = {}): Promise<{ items: K8sObject[]; resourceVersion: string }> {
    this.served(kind);
    const [lk, lv] = o.labelSelector?.split('=') ?? [];
    const items = [...this.objects.values()].filter(
      (x) => x.apiVersion === kind.apiVersion && x.kind === kind.kind && (!kind.namespace || x.metadata.namespace === kind.namespace) && (!lk || x.metadata.labels?.[lk] === lv),
    );
    return { items: items.map(clone), resourceVersion: String(this.rv) };
  }

  async patchMerge(ref: ObjectRef, patch: Record<string, unknown>, o: { dryRun?: boolean } = {}): Promise<K8sObject> {
    this.served(ref);
    const live = this.objects.get(keyOf(ref));
    if (!live) throw new NotFoundError(ref);
    const next = mergePatch(live, patch) as K8sObject;
    if (o.dryRun) return next;
    this.writes.push({ verb: 'patch', id: refId(ref), body: patch });
    if ('spec' in patch) next.metadata.generation = (live.metadata.generation ?? 1) + 1;
    return clone(this.set(next));
  }

  async delete(ref: ObjectRef, o: DeleteOptions = {}): Promise<boolean> {
    this.served(ref);
    if (!this.objects.has(keyOf(ref))) return false;
    if (o.dryRun) return true;
    this.writes.push({ verb: 'delete', id: refId(ref) });
    this.objects.delete(keyOf(ref));
    this.changed();
    return true;
  }

  async apply(objects: readonly K8sObject[], o: ApplyOptions): Promise<ApplyResult[]> {
    const results: ApplyResult[] = [];
    for (const obj of objects) {
      const ref = refOf(obj);
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
        this.writes.push({ verb: 'apply', id: refId(ref), body: obj });
        if (obj.kind === 'CustomResourceDefinition') next.status = { conditions: [{ type: 'Established', status: 'True' }] };
        this.set(next);
      }
      results.push({ id: refId(ref), ref, action, object: clone(this.objects.get(keyOf(ref)) ?? next) });
    }
    return results;
  }

  async waitEstablished(): Promise<void> {}

  async waitDeleted(ref: ObjectRef): Promise<void> {
    if (this.objects.has(keyOf(ref))) throw new Error(`FakeClusterClient: ${refId(ref)} still exists (delete it, or script its removal)`);
  }

  /** Yields the current snapshot, then a new one after every change, until `signal` aborts. */
  async *observe(kind: KindRef, signal: AbortSignal): AsyncIterable<Map<string, K8sObject>> {
    this.counters.watches++;
    let dirty = true;
    let wake: (() => void) | undefined;
    const listener = () => {
      dirty = true;
      wake?.();
    };
    const onAbort = () => wake?.();
    this.listeners.add(listener);
    signal.addEventListener('abort', onAbort);
    try {
      while (!signal.aborted) {
        if (dirty) {
          dirty = false;
          const items = (await this.list(kind)).items;
          yield new Map(items.map((i) => [i.metadata.namespace ? `${i.metadata.namespace}/${i.metadata.name}` : i.metadata.name, i]));
          continue;
        }
        await new Promise<void>((r) => (wake = r));
        wake = undefined;
      }
    } finally {
      this.listeners.delete(listener);
      signal.removeEventListener('abort', onAbort);
    }
  }
}
