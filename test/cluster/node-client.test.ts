import v8 from 'node:v8';
import vm from 'node:vm';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { K8sObject } from '../../src/cluster/client.js';
import { ApplyError, ClusterError, ClusterTimeoutError, ConflictError, NoKindError, NotFoundError } from '../../src/cluster/errors.js';
import { createClusterClient, type NodeClusterClient } from '../../src/cluster/node-client.js';
import { retryAfterMs } from '../../src/cluster/raw-api.js';
import { FakeApiServer } from './fake-apiserver.js';

const instant = async () => {};
let api: FakeApiServer;
let client: NodeClusterClient;

beforeEach(async () => {
  api = await new FakeApiServer().start();
  client = createClusterClient(api.kubeconfig(), { delay: instant, requestTimeoutMs: 2000 });
});
afterEach(async () => {
  await api.stop();
});

const ns: K8sObject = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'cdi' } };
const crd: K8sObject = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'storageprofiles.cdi.kubevirt.io' },
  spec: {
    group: 'cdi.kubevirt.io',
    scope: 'Cluster',
    names: { kind: 'StorageProfile', plural: 'storageprofiles' },
    versions: [{ name: 'v1beta1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
  },
};
const profile: K8sObject = { apiVersion: 'cdi.kubevirt.io/v1beta1', kind: 'StorageProfile', metadata: { name: 'longhorn' }, spec: { claimPropertySets: [{ accessModes: ['ReadWriteMany'] }] } };
const cm = (data: Record<string, string>, name = 'settings'): K8sObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'cdi' }, data });
const opts = { fieldManager: 'standup', force: true } as const;

describe('apply (server-side apply with drift detection)', () => {
  it('creates in Flux stages, waits for the CRD to be Established, then applies its CR', async () => {
    const r = await client.apply([profile, cm({ a: '1' }), crd, ns], opts);
    expect(r.map((x) => `${x.id} ${x.action}`)).toEqual([
      'CustomResourceDefinition/storageprofiles.cdi.kubevirt.io created',
      'Namespace/cdi created',
      'StorageProfile/longhorn created',
      'ConfigMap/cdi/settings created',
    ]);
    const crdGets = api.log.filter((l) => l.method === 'GET' && l.url.endsWith('/customresourcedefinitions/storageprofiles.cdi.kubevirt.io'));
    expect(crdGets.length).toBeGreaterThanOrEqual(3); // live lookup, then polls until Established
  });

  it('sends a real SSA request with the raw body (CRD schema extensions intact)', async () => {
    await client.apply([crd], opts);
    const write = api.writes().find((l) => l.method === 'PATCH')!;
    expect(write.contentType).toBe('application/apply-patch+yaml');
    const q = new URL(write.url, 'http://x').searchParams;
    expect([q.get('fieldManager'), q.get('force'), q.get('dryRun')]).toEqual(['standup', 'true', null]);
    // client-node's typed serializer would have dropped this (it expects xKubernetesPreserveUnknownFields).
    expect(JSON.parse(write.body!).spec.versions[0].schema.openAPIV3Schema['x-kubernetes-preserve-unknown-fields']).toBe(true);
  });

  it('reports a second apply of the same manifests as unchanged, writes nothing, keeps every resourceVersion', async () => {
    const objs = [ns, crd, profile, cm({ a: '1' })];
    await client.apply(objs, opts);
    const rvs = [...api.objects.values()].map((o) => o.metadata.resourceVersion);
    const before = api.writes().length;
    const r = await client.apply(objs, opts);
    expect(r.map((x) => x.action)).toEqual(['unchanged', 'unchanged', 'unchanged', 'unchanged']);
    expect(api.writes().length).toBe(before);
    expect([...api.objects.values()].map((o) => o.metadata.resourceVersion)).toEqual(rvs);
  });

  it('reports only the drifted object as configured', async () => {
    await client.apply([ns, cm({ a: '1' }), cm({ b: '1' }, 'other')], opts);
    const r = await client.apply([ns, cm({ a: '2' }), cm({ b: '1' }, 'other')], opts);
    expect(r.map((x) => `${x.id} ${x.action}`)).toEqual(['Namespace/cdi unchanged', 'ConfigMap/cdi/settings configured', 'ConfigMap/cdi/other unchanged']);
  });

  it('with dryRun writes nothing and reports what the batch would create, even CRs of a CRD in the batch', async () => {
    const r = await client.apply([ns, crd, profile, cm({ a: '1' })], { ...opts, dryRun: true });
    expect(r.map((x) => x.action)).toEqual(['created', 'created', 'created', 'created']);
    expect(api.writes()).toEqual([]);
    expect(api.objects.size).toBe(0);
  });

  it('fails a CR without its CRD with Flux\'s dry-run message, before writing anything of that stage', async () => {
    const e = await client.apply([ns, profile, cm({ a: '1' })], opts).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ApplyError);
    expect((e as ApplyError).message).toBe('StorageProfile/longhorn dry-run failed: no matches for kind "StorageProfile" in version "cdi.kubevirt.io/v1beta1"');
    expect((e as ApplyError).reason).toBe('NoKind');
    // the Namespace stage went through; the ConfigMap, in the failed stage, did not
    expect((e as ApplyError).applied.map((x) => x.id)).toEqual(['Namespace/cdi']);
    expect([...api.objects.values()].map((o) => o.kind)).toEqual(['Namespace']);
  });

  it('puts the object and the API reason first in other rejections', async () => {
    const bad = { ...cm({ a: '1' }), metadata: { name: 'bad', namespace: 'default', labels: { invalid: 'x' } } };
    const e = await client.apply([bad], opts).catch((x: unknown) => x);
    expect((e as ApplyError).message).toBe('ConfigMap/default/bad dry-run failed (Invalid): ConfigMap "bad" is invalid: metadata.labels: Invalid value');
  });
});

describe('get, list, patchMerge, delete', () => {
  it('throws NotFoundError for a missing object and returns undefined from find()', async () => {
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: 'x', namespace: 'default' };
    await expect(client.get(ref)).rejects.toBeInstanceOf(NotFoundError);
    await expect(client.find(ref)).resolves.toBeUndefined();
  });

  it('throws NoKindError for an unknown kind, not "Failed to fetch resource metadata"', async () => {
    const e = await client.get({ apiVersion: 'kustomize.toolkit.fluxcd.io/v1', kind: 'Kustomization', name: 'x', namespace: 'flux-system' }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(NoKindError);
    expect((e as Error).message).toBe('no matches for kind "Kustomization" in version "kustomize.toolkit.fluxcd.io/v1"');
  });

  it('lists across namespaces with apiVersion and kind restored on items', async () => {
    api.put({ ...cm({ a: '1' }), metadata: { name: 'one', namespace: 'a' } });
    api.put({ ...cm({ a: '1' }), metadata: { name: 'two', namespace: 'b' } });
    const l = await client.list({ apiVersion: 'v1', kind: 'ConfigMap' });
    expect(l.items.map((i) => `${i.kind} ${i.metadata.namespace}/${i.metadata.name}`)).toEqual(['ConfigMap a/one', 'ConfigMap b/two']);
    expect(l.resourceVersion).toBe(String(api.rv));
  });

  it('merge-patches with the merge-patch content type (client-node defaults to JSON patch)', async () => {
    api.put(cm({ a: '1' }, 'x'));
    api.put(ns);
    const o = await client.patchMerge({ apiVersion: 'v1', kind: 'ConfigMap', name: 'x', namespace: 'cdi' }, { metadata: { annotations: { 'reconcile.fluxcd.io/requestedAt': 't1' } } });
    expect(o.metadata.annotations?.['reconcile.fluxcd.io/requestedAt']).toBe('t1');
    expect(api.log.at(-1)?.contentType).toBe('application/merge-patch+json');
  });

  it('deletes with a propagation policy and reports an object already gone', async () => {
    api.put(cm({ a: '1' }, 'x'));
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: 'x', namespace: 'cdi' };
    await expect(client.delete(ref, { propagationPolicy: 'Background' })).resolves.toBe(true);
    expect(api.log.at(-1)?.url).toContain('propagationPolicy=Background');
    await expect(client.delete(ref)).resolves.toBe(false);
  });
});

describe('preflight and teardown helpers', () => {
  it('reads the server version', async () => {
    await expect(client.serverVersion()).resolves.toMatchObject({ gitVersion: 'v1.36.4' });
  });

  it('waits until a deleted object is gone, and names its finalizers on timeout', async () => {
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: 'x', namespace: 'cdi' };
    api.put({ ...cm({ a: '1' }, 'x'), metadata: { name: 'x', namespace: 'cdi', finalizers: ['finalizers.fluxcd.io'] } });
    let polls = 0;
    const c = createClusterClient(api.kubeconfig(), {
      delay: async () => {
        if (++polls === 3) api.objects.clear();
      },
    });
    await c.waitDeleted(ref, { pollMs: 1 });
    expect(polls).toBe(3);
    api.put({ ...cm({ a: '1' }, 'x'), metadata: { name: 'x', namespace: 'cdi', finalizers: ['finalizers.fluxcd.io'] } });
    await expect(c.waitDeleted(ref, { timeoutMs: 0 })).rejects.toThrow('timeout waiting for ConfigMap/cdi/x to be deleted (finalizers: finalizers.fluxcd.io)');
  });

  it('types a 409 as ConflictError inside the ApplyError', async () => {
    const obj = { ...cm({ a: '1' }), metadata: { name: 'c', namespace: 'default', labels: { conflict: 'x' } } };
    const e = (await client.apply([obj], { fieldManager: 'standup', force: false }).catch((x: unknown) => x)) as ApplyError;
    expect(e.reason).toBe('Conflict');
    expect(e.message).toBe('ConfigMap/default/c dry-run failed (Conflict): Apply failed with 1 conflict: conflict with "kubectl" using v1: .data.a');
    expect(e.cause).toBeInstanceOf(ConflictError);
  });
});

describe('transport failures', () => {
  it('times out a hung request with a ClusterTimeoutError (client-node has no timeout of its own)', async () => {
    const c = createClusterClient(api.kubeconfig(), { requestTimeoutMs: 300 });
    api.hang = (m, url) => url.startsWith('/api/v1/namespaces/default/configmaps/');
    const e = await c.get({ apiVersion: 'v1', kind: 'ConfigMap', name: 'x', namespace: 'default' }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ClusterTimeoutError);
    expect((e as Error).message).toContain('timed out after 300 ms');
  }, 5000); // without its own timeout the request would hang past this

  it('times out a hung request although a garbage collection ran while it waited (AbortSignal.any on Node 20)', async () => {
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    const c = createClusterClient(api.kubeconfig(), { requestTimeoutMs: 300 });
    api.hang = (m, url) => url === '/version' || url.startsWith('/api/v1/namespaces/default/configmaps/');
    const asked = [c.get({ apiVersion: 'v1', kind: 'ConfigMap', name: 'x', namespace: 'default' }), c.serverVersion({ timeoutMs: 300 })].map((p) => p.catch((x: unknown) => x));
    await new Promise((r) => setTimeout(r, 100));
    gc(); // on Node 20 this collected AbortSignal.timeout's signal, and the requests waited forever
    for (const e of await Promise.all(asked)) expect(e).toBeInstanceOf(ClusterTimeoutError);
  }, 5000);

  it('reports a server that went away as Unreachable', async () => {
    const url = api.url;
    await api.stop();
    const e = await client.get({ apiVersion: 'v1', kind: 'Namespace', namespace: null, name: 'x' }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ClusterError);
    expect((e as ClusterError).reason).toBe('Unreachable');
    expect((e as Error).message).toBe(`cannot reach the API server ${url}: ECONNREFUSED`);
    api = await new FakeApiServer().start(); // for afterEach
  });

  it('sends again what the server asks to be retried (429 or 5xx with Retry-After), as client-go does', async () => {
    const ref = { apiVersion: 'v1', kind: 'Namespace', namespace: null, name: 'x' } as const;
    let refused = 0;
    api.busy = (m, url) => (url.startsWith('/api/v1/namespaces/x') && refused++ < 2 ? { code: 429, retryAfter: '0', message: 'storage is (re)initializing' } : undefined);
    expect(await client.find(ref)).toBeUndefined(); // the third answer: 404
    expect(refused).toBe(3);
    refused = 0;
    api.busy = (m, url) => (url.startsWith('/api/v1/namespaces/x') && refused++ < 1 ? { code: 503, retryAfter: '0' } : undefined);
    expect(await client.find(ref)).toBeUndefined();
    expect(refused).toBe(2);
  });

  it('does not retry an error without Retry-After, and gives up after 10 retries', async () => {
    const ref = { apiVersion: 'v1', kind: 'Namespace', namespace: null, name: 'x' } as const;
    let asked = 0;
    api.busy = (m, url) => (url.startsWith('/api/v1/namespaces/x') ? (asked++, { code: 503 }) : undefined);
    const e1 = await client.get(ref).catch((x: unknown) => x);
    expect((e1 as ClusterError).status).toBe(503);
    expect(asked).toBe(1);
    asked = 0;
    api.busy = (m, url) => (url.startsWith('/api/v1/namespaces/x') ? (asked++, { code: 429, retryAfter: '0', message: 'slow down' }) : undefined);
    const e2 = await client.get(ref).catch((x: unknown) => x);
    expect((e2 as ClusterError).status).toBe(429);
    expect((e2 as Error).message).toContain('slow down');
    expect(asked).toBe(11);
  });

  it.each([
    [429, { 'retry-after': '1' }, 1000],
    [503, { 'Retry-After': '2' }, 2000],
    [429, { 'retry-after': '120' }, 10_000], // cut: a CLI keeps asking
    [429, {}, undefined],
    [409, { 'retry-after': '1' }, undefined],
    [503, { 'retry-after': 'Wed, 21 Oct 2026 07:28:00 GMT' }, undefined], // client-go reads seconds only
  ])('retryAfterMs(%i, %o) = %s', (code, headers, want) => {
    expect(retryAfterMs(code, headers)).toBe(want);
  });

  it('counts requests for benchmarks', async () => {
    client.resetStats();
    await client.find({ apiVersion: 'v1', kind: 'Namespace', namespace: null, name: 'x' });
    expect(client.stats().requests).toBe(api.log.length);
  });
});

describe('reachability', () => {
  it('goes unreachable when the API server goes away, stays so while watches fail to connect, and comes back', async () => {
    api.resources.push({ group: '', version: 'v1', kind: 'Pod', plural: 'pods', namespaced: true });
    const retries: unknown[] = [];
    const c = createClusterClient(api.kubeconfig(), { requestTimeoutMs: 2000, backoff: { initialMs: 5, maxMs: 20, factor: 2 }, onRetry: (r) => retries.push(r) });
    const seen: boolean[] = [];
    c.onReachability((r) => seen.push(r.reachable));
    const ac = new AbortController();
    const it = c.observe({ apiVersion: 'v1', kind: 'ConfigMap' }, ac.signal)[Symbol.asyncIterator]();
    await it.next();
    const port = api.port;
    await api.stop();
    // Many failed reconnects, counted rather than timed.
    while (retries.length < 5) await new Promise((r) => setTimeout(r, 10));
    expect(c.reachability().reachable).toBe(false);
    expect(seen).toEqual([false]); // said once, no flapping
    api = await new FakeApiServer().start(port);
    await c.serverVersion();
    expect(seen).toEqual([false, true]);
    ac.abort();
    await it.return?.();
  });
});

describe('connections', () => {
  it('sends its requests over one kept-alive connection, not one connection per request', async () => {
    let connections = 0;
    api.server.on('connection', () => void (connections += 1));
    for (let i = 0; i < 5; i++) await client.find({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'cdi', name: `x${i}` });
    expect(connections).toBe(1);
  });

  it('discovers a group once for requests sent side by side', async () => {
    await Promise.all([0, 1, 2].map((i) => client.find({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'cdi', name: `y${i}` })));
    expect(api.log.filter((l) => l.method === 'GET' && /\/api\/v1\/?$/.test(l.url.split('?')[0]!)).length).toBe(1);
  });
});
