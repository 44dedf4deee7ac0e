import type { ClusterClient, K8sObject, KindRef, ObjectRef } from '../../src/cluster/client.js';

/**
 * A scripted stand-in for the API server plus kustomize-controller, for fast unit tests of the tier engine only.
 * Behaviour that talks to the real API is tested against the testbed (test/integration).
 */
export class FakeFlux implements Partial<ClusterClient> {
  readonly context = 'fake';
  readonly server = 'https://fake';
  readonly objects = new Map<string, K8sObject>();
  readonly patches: { key: string; patch: unknown }[] = [];
  private listeners: (() => void)[] = [];
  /** Called on every requestedAt annotation of a Kustomization: decide what the controller does. */
  onRequest: (key: string, ks: K8sObject) => void = () => {};

  constructor(readonly revision = 'main@sha1:' + 'a'.repeat(40)) {
    this.put({ apiVersion: 'source.toolkit.fluxcd.io/v1', kind: 'GitRepository', metadata: { name: 'flux-system', namespace: 'flux-system', generation: 1 },
      status: { observedGeneration: 1, artifact: { revision }, conditions: [{ type: 'Ready', status: 'True', reason: 'Succeeded' }] } });
  }

  ks(name: string, state: 'new' | 'ready' | 'failed' = 'new', message = ''): void {
    const status: Record<string, unknown> =
      state === 'ready' ? { observedGeneration: 1, lastAppliedRevision: this.revision, lastAttemptedRevision: this.revision, conditions: [{ type: 'Ready', status: 'True', reason: 'ReconciliationSucceeded', message: `Applied revision: ${this.revision}` }] }
      : state === 'failed' ? { observedGeneration: -1, lastAttemptedRevision: this.revision, conditions: [{ type: 'Ready', status: 'False', reason: 'ReconciliationFailed', message }] }
      : {};
    this.put({ apiVersion: 'kustomize.toolkit.fluxcd.io/v1', kind: 'Kustomization', metadata: { name, namespace: 'flux-system', generation: 1, annotations: {} },
      spec: { sourceRef: { kind: 'GitRepository', name: 'flux-system' } }, status });
  }

  /** Marks a Kustomization Ready at the current revision, as KC would after a successful reconcile. */
  ready(name: string, handled?: string): void {
    this.ks(name, 'ready');
    if (handled) (this.objects.get(`Kustomization/flux-system/${name}`)!.status as Record<string, unknown>).lastHandledReconcileAt = handled;
    this.notify();
  }

  put(o: K8sObject): void {
    this.objects.set(`${o.kind}/${o.metadata.namespace}/${o.metadata.name}`, o);
    this.notify();
  }

  async patchMerge(ref: ObjectRef, patch: Record<string, unknown>): Promise<K8sObject> {
    const key = `${ref.kind}/${ref.namespace}/${ref.name}`;
    const o = this.objects.get(key)!;
    const ann = (patch.metadata as { annotations?: Record<string, string> } | undefined)?.annotations ?? {};
    o.metadata.annotations = { ...o.metadata.annotations, ...ann };
    this.patches.push({ key, patch });
    const value = ann['reconcile.fluxcd.io/requestedAt'];
    if (value && ref.kind === 'GitRepository') (o.status as Record<string, unknown>).lastHandledReconcileAt = value;
    if (value && ref.kind === 'Kustomization') queueMicrotask(() => this.onRequest(`${ref.namespace}/${ref.name}`, o));
    this.notify();
    return o;
  }

  async *observe(kind: KindRef, signal: AbortSignal): AsyncIterable<Map<string, K8sObject>> {
    while (!signal.aborted) {
      yield new Map([...this.objects].filter(([k]) => k.startsWith(`${kind.kind}/`)).map(([k, v]) => [k.slice(kind.kind.length + 1), structuredClone(v)]));
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

  stats() {
    return { requests: 0, watches: 0, relists: 0, since: 0 };
  }

  private notify(): void {
    const l = this.listeners;
    this.listeners = [];
    l.forEach((f) => f());
  }
}
