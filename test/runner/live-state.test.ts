import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { LIST_PATIENCE_MS, LiveState } from '../../src/runner/live-state.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { FakeCluster } from '../fakes/fake-cluster.js';

async function started(cluster = new FakeCluster()) {
  const ac = new AbortController();
  const clock = new FakeClock();
  const live = new LiveState(cluster, ac.signal, clock);
  await live.start();
  return { ac, clock, live, cluster };
}

describe('LiveState.changed', () => {
  it('leaves no abort listener behind when a wait times out, however many quiet ticks pass', async () => {
    const { ac, live } = await started();
    const baseline = getEventListeners(ac.signal, 'abort').length;
    // More quiet ticks than Node's default of 10 listeners before MaxListenersExceededWarning.
    for (let i = 0; i < 25; i++) await live.changed(1);
    expect(getEventListeners(ac.signal, 'abort').length).toBe(baseline);
    ac.abort();
  });

  it('still resolves at once on abort, long before its time is up', async () => {
    const { ac, clock, live } = await started();
    const t0 = clock.now();
    const wait = live.changed(60_000);
    ac.abort();
    await wait;
    expect(clock.now() - t0).toBeLessThan(60_000);
  });

  it('rejects at once when the run was already aborted, so a 0s deadline cannot hang a run', async () => {
    const { ac, clock, live } = await started();
    ac.abort();
    const t0 = clock.now();
    await expect(live.changed(60_000)).rejects.toMatchObject({ code: 'INTERRUPTED' });
    expect(clock.now()).toBe(t0);
  });

  it('resolves at once for an update that came after the caller last looked', async () => {
    const { ac, clock, live, cluster } = await started();
    const seen = live.version;
    cluster.ks('apps');
    await new Promise((r) => setImmediate(r));
    const t0 = clock.now();
    await live.changed(60_000, seen);
    expect(clock.now()).toBe(t0);
    ac.abort();
  });

  it('start() waits for the sources too, so the first look never says a source is "not created yet" when it exists', async () => {
    const { ac, live } = await started();
    expect(live.sources.has('GitRepository/flux-system/flux-system')).toBe(true);
    ac.abort();
  });
});

describe('LiveState.sourceRevisionAtFirstSight', () => {
  it('is the revision its source had when the Kustomization first appeared, kept when the source moves on', async () => {
    const { ac, live, cluster } = await started();
    cluster.ks('apps');
    await new Promise((r) => setImmediate(r));
    expect(live.sourceRevisionAtFirstSight('flux-system/apps')).toBe(cluster.revision);
    expect(live.sourceRevisionAtFirstSight('flux-system/later')).toBeUndefined();
    // A Kustomization seen before its source has an artifact: null, and still null once the artifact arrives.
    const src = cluster.objects.get('GitRepository/flux-system/flux-system')!;
    delete (src.status as { artifact?: unknown }).artifact;
    cluster.notify();
    await new Promise((r) => setImmediate(r));
    cluster.ks('root');
    await new Promise((r) => setImmediate(r));
    (src.status as { artifact?: unknown }).artifact = { revision: cluster.revision };
    cluster.notify();
    await new Promise((r) => setImmediate(r));
    expect(live.sources.get('GitRepository/flux-system/flux-system')?.status?.artifact?.revision).toBe(cluster.revision);
    expect(live.sourceRevisionAtFirstSight('flux-system/root')).toBeNull();
    expect(live.sourceRevisionAtFirstSight('flux-system/apps')).toBe(cluster.revision);
    ac.abort();
  });
});

describe('LiveState.watched', () => {
  it('starts a watch on the first ask: unknown until it lists, then its objects, kept current', async () => {
    const { ac, live, cluster } = await started();
    const crds = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' };
    expect(live.watched(crds)).toBeUndefined();
    await live.changed(1000);
    expect([...live.watched(crds)!.keys()]).toEqual([]);
    cluster.put({ ...crds, metadata: { name: 'widgets.example.com' } });
    await live.changed(1000);
    expect([...live.watched(crds)!.keys()]).toEqual(['widgets.example.com']);
    ac.abort();
  });

  it('watches only the objects a label selector picks, in one namespace', async () => {
    const cluster = new FakeCluster();
    const pod = (ns: string, name: string, app: string) => cluster.put({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: ns, labels: { app } } });
    pod('apps', 'web-1', 'web');
    pod('apps', 'db-1', 'db');
    pod('other', 'web-2', 'web');
    const { ac, live } = await started(cluster);
    const pods = { apiVersion: 'v1', kind: 'Pod', namespace: 'apps', labelSelector: 'app=web' };
    live.watched(pods);
    await live.changed(1000);
    expect([...live.watched(pods)!.keys()]).toEqual(['apps/web-1']);
    ac.abort();
  });

  it('counts as unreadable when it cannot be read, or has not listed within its patience (the API server away)', async () => {
    const cluster = new FakeCluster();
    const stuck = { apiVersion: 'v1', kind: 'Node' };
    const denied = { apiVersion: 'v1', kind: 'Secret' };
    const { ac, clock, live } = await started(cluster);
    cluster.observe = async function* (kind) {
      if (kind.kind === 'Secret') throw Object.assign(new Error('forbidden'), { statusCode: 403 });
      await new Promise(() => {});
    };
    expect(live.watched(stuck)).toBeUndefined();
    expect(live.watched(denied)).toBeUndefined();
    await live.changed(1000);
    expect(live.watched(denied)).toBeNull();
    const t0 = clock.now();
    while (clock.now() - t0 < LIST_PATIENCE_MS) await live.changed(1000);
    expect(live.watched(stuck)).toBeNull();
    ac.abort();
  });
});

describe('LiveState.start', () => {
  /** A cluster whose Bucket LIST is slow to come (a fresh CRD's cache answering 429, retry after 1 s). */
  class SlowBuckets extends FakeCluster {
    release!: () => void;
    readonly released = new Promise<void>((r) => (this.release = r));
    override async *observe(...args: Parameters<FakeCluster['observe']>): AsyncIterable<Map<string, import('../../src/cluster/client.js').K8sObject>> {
      if (args[0].kind === 'Bucket') await this.released;
      yield* super.observe(...args);
    }
  }

  it('resolves once the kinds the run reads at once have listed; the others arrive later', async () => {
    const cluster = new SlowBuckets();
    const ac = new AbortController();
    const live = new LiveState(cluster, ac.signal, new FakeClock());
    await live.start(new Set(['Kustomization', 'GitRepository']));
    const all = new LiveState(cluster, ac.signal, new FakeClock());
    let allListed = false;
    const waiting = all.start().then(() => (allListed = true));
    await new Promise((r) => setTimeout(r, 20));
    expect(allListed).toBe(false); // without `needed`, every kind
    cluster.release();
    await waiting;
    expect(allListed).toBe(true);
    ac.abort();
  });
});
