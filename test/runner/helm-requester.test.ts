import { describe, expect, it } from 'vitest';
import type { K8sObject } from '../../src/cluster/client.js';
import type { RunEvent } from '../../src/runner/events.js';
import { HelmRequester } from '../../src/runner/helm-requester.js';
import { LiveState } from '../../src/runner/live-state.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { FakeCluster } from '../fakes/fake-cluster.js';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const owned = (tier: string) => ({ 'kustomize.toolkit.fluxcd.io/name': tier, 'kustomize.toolkit.fluxcd.io/namespace': 'flux-system' });
const hr = (ns: string, name: string, o: { tier?: string; deps?: string[]; ready?: { status: string; reason: string } } = {}): K8sObject => ({
  apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease',
  metadata: { name, namespace: ns, generation: 1, ...(o.tier ? { labels: owned(o.tier) } : {}) },
  spec: { ...(o.deps ? { dependsOn: o.deps.map((d) => ({ name: d })) } : {}) },
  status: { observedGeneration: 1, conditions: [{ type: 'Ready', message: '', ...(o.ready ?? { status: 'True', reason: 'InstallSucceeded' }) }] },
});
const away = { status: 'False', reason: 'DependencyNotReady' };
/** The fake's watch delivers a change within a few turns of the event loop. */
const settle = async () => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
};

async function setup(objects: K8sObject[]) {
  const client = new FakeCluster();
  for (const o of objects) client.put(o);
  const ac = new AbortController();
  const clock = new FakeClock(T0);
  const live = new LiveState(client, ac.signal, clock);
  await live.start();
  const events: RunEvent[] = [];
  const requests = new HelmRequester({ client, live, emit: (e) => events.push(e), steps: new Map([['flux-system/apps', 'tier:flux-system/apps'], ['flux-system/flux-system', 'source']]), clock, tickMs: 1000 });
  return { client, live, ac, events, requests, clock };
}

describe('HelmRequester', () => {
  it('asks only for the turned-away releases a tier of the plan applied, as a change event on that tier', async () => {
    const { client, ac, events, requests } = await setup([
      hr('db', 'pg', { tier: 'apps' }),
      hr('db', 'web', { tier: 'apps', deps: ['pg'], ready: away }),
      // Applied by a Kustomization outside the plan (excluded, or someone else's): not standup's to ask about.
      hr('db', 'other', { tier: 'elsewhere', deps: ['pg'], ready: away }),
      hr('db', 'manual', { deps: ['pg'], ready: away }),
      // The root sync's own: under the source step.
      hr('db', 'rooted', { tier: 'flux-system', deps: ['pg'], ready: away }),
    ]);
    await requests.pass(ac.signal, T0);
    expect(client.writes.map((w) => w.id).sort()).toEqual(['HelmRelease/db/rooted', 'HelmRelease/db/web']);
    expect(events.find((e) => e.type === 'change' && e.object === 'HelmRelease/db/rooted')).toMatchObject({ id: 'source' });
    events.splice(events.findIndex((e) => e.type === 'change' && e.object === 'HelmRelease/db/rooted'), 1);
    expect(client.writes[0]!.body).toEqual({ metadata: { annotations: { 'reconcile.fluxcd.io/requestedAt': '2026-01-01T00:00:00.000Z' } } });
    expect(events).toEqual([{ type: 'change', id: 'tier:flux-system/apps', object: 'HelmRelease/db/web', change: { kind: 'annotate', key: 'reconcile.fluxcd.io/requestedAt', value: '2026-01-01T00:00:00.000Z' }, dryRun: false }]);
    expect(requests.stats).toEqual({ asked: 2, requests: 2, passed: 0, early: 0 });
    ac.abort();
  });

  it('counts a release past the check on its request, and a re-request after a stale answer as a request, not a release', async () => {
    const { client, ac, requests } = await setup([hr('db', 'pg', { tier: 'apps' }), hr('db', 'web', { tier: 'apps', deps: ['pg'], ready: away })]);
    await requests.pass(ac.signal, T0);
    // The fake echoes the request in lastHandledReconcileAt at once; the answer is still "not ready" (stale).
    await settle();
    await requests.pass(ac.signal, T0 + 100);
    await requests.pass(ac.signal, T0 + 400);
    expect(requests.stats).toEqual({ asked: 1, requests: 2, passed: 0, early: 0 });
    const web = client.objects.get('HelmRelease/db/web')!;
    (web.status as { conditions: unknown[] }).conditions = [{ type: 'Ready', status: 'Unknown', reason: 'Progressing' }];
    client.put(web);
    await settle();
    await requests.pass(ac.signal, T0 + 500);
    expect(requests.stats).toEqual({ asked: 1, requests: 2, passed: 1, early: 0 });
    ac.abort();
  });

  it('a release it cannot patch (deleted meanwhile) is said once and left to helm-controller', async () => {
    const { client, ac, events, requests } = await setup([hr('db', 'pg', { tier: 'apps' }), hr('db', 'web', { tier: 'apps', deps: ['pg'], ready: away })]);
    client.patchMerge = () => Promise.reject(new Error('HelmRelease/db/web not found'));
    await requests.pass(ac.signal, T0);
    await requests.pass(ac.signal, T0 + 10_000);
    expect(events).toEqual([{ type: 'log', level: 'warn', message: expect.stringContaining('could not ask helm-controller to reconcile HelmRelease/db/web: HelmRelease/db/web not found') }]);
    expect(requests.stats).toEqual({ asked: 0, requests: 0, passed: 0, early: 0 });
    ac.abort();
  });

  it('run() ends promptly when the live state stops, without waiting out its tick', async () => {
    const { ac, requests, clock } = await setup([]);
    const done = requests.run(ac.signal);
    const t0 = clock.now();
    ac.abort();
    await done;
    expect(clock.now() - t0).toBeLessThan(1000);
  });
});
