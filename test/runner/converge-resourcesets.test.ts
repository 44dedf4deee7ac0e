// ResourceSets as tiers of converge: ordered by the tiers their dependsOn resolve to, parents of the Kustomizations
// they generate, ended like tiers.
import { describe, expect, it } from 'vitest';
import { converge } from '../../src/runner/converge.js';
import type { RunEvent } from '../../src/runner/events.js';
import { LiveState } from '../../src/runner/live-state.js';
import { StepTracker } from '../../src/runner/steps.js';
import type { FluxResourceSet } from '../../src/model/flux.js';
import { cluster, ks, plan } from '../helpers/model.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { FakeCluster } from '../fakes/fake-cluster.js';

const RS = 'ResourceSet/flux-system/tenants';
const tenants = (): FluxResourceSet => ({
  key: RS, namespace: 'flux-system', name: 'tenants', parent: null, origin: { file: 'clusters/dev/tenants.yaml', line: 4 },
  dependsOn: [{ apiVersion: 'kustomize.toolkit.fluxcd.io/v1', kind: 'Kustomization', name: 'apps', namespace: 'flux-system', ready: true, readyExpr: null, line: 12 }],
  wait: true, inputSets: 1, providers: [], generated: ['Kustomization/flux-system/tenant-a'], expansion: 'built', raw: {},
});
const ctx = () => {
  const c = cluster('dev', [ks('apps'), ks('tenant-a', { parent: RS, generatedBy: RS })]);
  return plan({ ...c, resourceSets: [tenants()] });
};
const requested = (o: { metadata: { annotations?: Record<string, string> } }) => o.metadata.annotations!['reconcile.fluxcd.io/requestedAt']!;
const readyRs = { apiVersion: 'fluxcd.controlplane.io/v1', kind: 'ResourceSet', metadata: { name: 'tenants', namespace: 'flux-system', generation: 1 }, status: { conditions: [{ type: 'Ready', status: 'True', reason: 'ReconciliationSucceeded', message: 'Reconciliation finished', observedGeneration: 1 }] } };

async function run(flux: FakeCluster, clock = new FakeClock()) {
  const events: RunEvent[] = [];
  const ac = new AbortController();
  const live = new LiveState(flux, ac.signal, clock);
  await live.start();
  const emit = (e: RunEvent) => events.push(e);
  try {
    const outcomes = await converge({
      ctx: ctx(), client: flux, live, emit, steps: new StepTracker(emit, clock.now), signal: ac.signal, clock,
      timeouts: { defaultMs: 5000, tiers: {}, overallMs: Infinity },
      fallback: [], knowledge: { runtimeCrds: [], groupsInGit: new Set(), externalCrds: [] },
      tickMs: 20, retryBackoff: { initialMs: 30, maxMs: 100 }, // The fake's kustomize-controller reconciles only when asked: nothing is left to its own queue.
      fluxQueueGraceMs: 0,
    });
    return { outcomes, events };
  } catch (error) {
    return { error: error as Error & { exitCode?: number }, events };
  } finally {
    ac.abort();
  }
}
const ends = (events: RunEvent[]) => Object.fromEntries(events.flatMap((e) => (e.type === 'step-end' ? [[e.id, { result: e.result, message: e.message }]] : [])));

describe('converge with a ResourceSet', () => {
  it('a dependsOn tier that fails: the ResourceSet is not run, nor the Kustomization it generates (not a timeout)', async () => {
    const flux = new FakeCluster();
    flux.ks('apps');
    flux.onRequest = (key, o) => flux.fail(key.split('/')[1]!, requested(o), 'kustomize build failed: accumulating resources', 'BuildFailed');
    const { error, events } = await run(flux);
    expect(error?.exitCode).toBe(1);
    const e = ends(events);
    expect(e['tier:flux-system/apps']?.result).toBe('failed');
    expect(e['rset:flux-system/tenants']).toEqual({ result: 'not-run', message: 'not run, not evaluated: flux-system/apps failed' });
    expect(e['tier:flux-system/tenant-a']).toEqual({ result: 'not-run', message: `not run, not evaluated: ${RS} not-run` });
  });

  it('already Ready with what it generates: skipped, naming it; the generated Kustomization skipped too', async () => {
    const flux = new FakeCluster();
    flux.ks('apps', 'ready');
    flux.ks('tenant-a', 'ready');
    flux.put(readyRs as never);
    const { outcomes, events } = await run(flux);
    expect(outcomes?.map((x) => [x.key, x.result])).toEqual([['flux-system/apps', 'skipped'], ['flux-system/tenant-a', 'skipped']]);
    expect(ends(events)['rset:flux-system/tenants']).toEqual({ result: 'skipped', message: 'already Ready; generated Kustomization/flux-system/tenant-a' });
  });

  it('waits on its dependsOn, then names the generated Kustomization it waits on, then ends ok', async () => {
    const flux = new FakeCluster();
    const clock = new FakeClock();
    flux.ks('apps');
    flux.onRequest = (key, o) => {
      const name = key.split('/')[1]!;
      if (name === 'apps') {
        flux.ready(name, requested(o));
        // The operator: once apps is Ready, it reconciles and applies tenant-a.
        flux.put({ ...readyRs, status: { conditions: [{ type: 'Ready', status: 'Unknown', reason: 'Progressing', message: 'Reconciliation in progress', observedGeneration: 1 }] } } as never);
        flux.ks('tenant-a');
      }
      if (name === 'tenant-a') {
        // kustomize-controller takes a while: Ready a second later, then the operator's health check passes.
        clock.at(1000, () => {
          flux.ready('tenant-a', requested(o));
          flux.put(readyRs as never);
        });
      }
    };
    const { outcomes, events, error } = await run(flux, clock);
    expect(error).toBeUndefined();
    expect(outcomes?.map((x) => [x.key, x.result])).toEqual([['flux-system/apps', 'ok'], ['flux-system/tenant-a', 'ok']]);
    const lines = events.flatMap((e) => (e.type === 'step-status' && e.id === 'rset:flux-system/tenants' ? [e.message] : []));
    expect(lines).toContain('waiting on 1 of the 1 Kustomizations/HelmReleases it generates: Kustomization/flux-system/tenant-a: waiting to be reconciled');
    expect(ends(events)['rset:flux-system/tenants']?.result).toBe('ok');
  });
});

describe('resourceSetStatuses (status)', () => {
  it('names what each ResourceSet waits on, or Ready', async () => {
    const { resourceSetStatuses } = await import('../../src/runner/rset-observe.js');
    const flux = new FakeCluster();
    flux.ks('apps');
    const ac = new AbortController();
    const live = new LiveState(flux, ac.signal, new FakeClock());
    await live.start();
    try {
      const look = async () => {
        for (;;) {
          const s = resourceSetStatuses(ctx(), live);
          if (s) return s;
          await live.changed(50);
        }
      };
      expect(await look()).toEqual([{ key: RS, level: 1, ready: false, state: 'not-found', message: 'waiting for flux-system/apps (its dependsOn)' }]);
      flux.ready('apps');
      flux.put({ ...readyRs, status: { conditions: [{ type: 'Ready', status: 'Unknown', reason: 'Progressing', message: 'Reconciliation in progress', observedGeneration: 1 }] } } as never);
      flux.ks('tenant-a');
      await live.changed(50);
      expect((await look())[0]?.message).toBe('waiting on 1 of the 1 Kustomizations/HelmReleases it generates: Kustomization/flux-system/tenant-a: waiting to be reconciled');
      flux.put(readyRs as never);
      await live.changed(50);
      expect((await look())[0]).toMatchObject({ ready: true, state: 'ready', message: 'Reconciliation finished' });
    } finally {
      ac.abort();
    }
  });
});
