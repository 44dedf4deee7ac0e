import { describe, expect, it } from 'vitest';
import { converge } from '../../src/runner/converge.js';
import type { RunEvent } from '../../src/runner/events.js';
import { LiveState } from '../../src/runner/live-state.js';
import { StepTracker } from '../../src/runner/steps.js';
import { cluster, ks, plan } from '../helpers/model.js';
import { FakeClock } from '../fakes/fake-clock.js';
import { FakeCluster } from '../fakes/fake-cluster.js';

// crds <- platform <- apps, and crds <- tools
const chain = () => plan(cluster('dev', [ks('crds'), ks('platform', { dependsOn: ['crds'] }), ks('apps', { dependsOn: ['platform'] }), ks('tools', { dependsOn: ['crds'] })]));
const requested = (o: { metadata: { annotations?: Record<string, string> } }) => o.metadata.annotations!['reconcile.fluxcd.io/requestedAt']!;

/**
 * Converges the chain against the fake cluster on a fake clock (time moves only when nothing else can). The fake's
 * kustomize-controller reconciles only when asked (or when a test scripts it), so by default nothing is left to its
 * own queue: fluxQueueGraceMs 0.
 */
async function run(flux: FakeCluster, o: { timeoutMs?: number; abortAfterMs?: number; fallback?: { group: string; kind: string; name: string; file: string }[]; clock?: FakeClock; fluxQueueGraceMs?: number } = {}) {
  const clock = o.clock ?? new FakeClock();
  const events: RunEvent[] = [];
  const ac = new AbortController();
  const live = new LiveState(flux, ac.signal, clock);
  await live.start();
  const emit = (e: RunEvent) => events.push(e);
  if (o.abortAfterMs !== undefined) clock.at(o.abortAfterMs, () => ac.abort());
  try {
    const outcomes = await converge({
      ctx: chain(), client: flux, live, emit, steps: new StepTracker(emit, clock.now), signal: ac.signal, clock,
      timeouts: { defaultMs: o.timeoutMs ?? 5000, tiers: {}, overallMs: Infinity },
      fallback: o.fallback ?? [], knowledge: { runtimeCrds: [], groupsInGit: new Set(), externalCrds: [] },
      tickMs: 20, retryBackoff: { initialMs: 30, maxMs: 100 }, fluxQueueGraceMs: o.fluxQueueGraceMs ?? 0,
    });
    return { outcomes, events };
  } catch (error) {
    return { error: error as Error & { exitCode?: number; hint?: string; code?: string }, events };
  } finally {
    ac.abort();
  }
}

const ends = (events: RunEvent[]) => Object.fromEntries(events.flatMap((e) => (e.type === 'step-end' ? [[e.id.slice('tier:flux-system/'.length), e.result]] : [])));

describe('converge', () => {
  it('requests each tier the moment its dependencies are Ready, in dependency order', async () => {
    const flux = new FakeCluster();
    for (const n of ['crds', 'platform', 'apps', 'tools']) flux.ks(n);
    flux.onRequest = (key, o) => flux.ready(key.split('/')[1]!, requested(o));
    const { outcomes } = await run(flux);
    const order = flux.writes.map((p) => p.id);
    expect(order[0]).toBe('Kustomization/flux-system/crds');
    expect(order.indexOf('Kustomization/flux-system/platform')).toBeLessThan(order.indexOf('Kustomization/flux-system/apps'));
    expect(new Set(order).size).toBe(4); // each once, never repeated
    expect(outcomes?.map((x) => [x.key, x.result])).toEqual(expect.arrayContaining([['flux-system/apps', 'ok'], ['flux-system/tools', 'ok']]));
  });

  it('leaves a tier kustomize-controller has queued on its own (created, not handled yet) to it, and asks only if it never starts', async () => {
    const kcReconciles = async (grace: number, kcStartsAtMs: number | null) => {
      const flux = new FakeCluster();
      const clock = new FakeClock();
      for (const n of ['platform', 'apps', 'tools']) flux.ks(n, 'ready');
      flux.ks('crds');
      // KC's creation event: its own reconcile, with no request to answer.
      if (kcStartsAtMs !== null) clock.at(kcStartsAtMs, () => flux.ready('crds'));
      flux.onRequest = (key, o) => flux.ready(key.split('/')[1]!, requested(o));
      const { outcomes, error } = await run(flux, { clock, fluxQueueGraceMs: grace });
      expect(error).toBeUndefined();
      expect(outcomes?.find((x) => x.key === 'flux-system/crds')?.result).toBe('ok');
      return flux.writes.map((w) => w.id);
    };
    expect(await kcReconciles(1000, 300)).toEqual([]);
    expect(await kcReconciles(100, null)).toEqual(['Kustomization/flux-system/crds']);
    // With nothing left to KC (grace 0), the request goes out at once: what the test above would fail without.
    expect(await kcReconciles(0, 300)).toEqual(['Kustomization/flux-system/crds']);
  });

  it('skips what is already Ready at the current revision and annotates nothing for it (resume)', async () => {
    const flux = new FakeCluster();
    for (const n of ['crds', 'platform', 'tools']) flux.ks(n, 'ready');
    flux.ks('apps');
    flux.onRequest = (key, o) => flux.ready(key.split('/')[1]!, requested(o));
    const { outcomes } = await run(flux);
    expect(outcomes?.filter((x) => x.result === 'skipped').map((x) => x.key).sort()).toEqual(['flux-system/crds', 'flux-system/platform', 'flux-system/tools']);
    expect(flux.writes.map((p) => p.id)).toEqual(['Kustomization/flux-system/apps']);
  });

  it('diagnoses the second-order CRD deadlock and points at the fallback, once Flux has handled the request', async () => {
    const flux = new FakeCluster();
    flux.ks('crds', 'ready');
    flux.ks('tools', 'ready');
    flux.ks('platform', 'failed', 'StorageProfile/longhorn dry-run failed: no matches for kind "StorageProfile" in version "cdi.kubevirt.io/v1beta1"\n');
    flux.ks('apps');
    flux.onRequest = (key, o) => flux.fail('platform', requested(o), 'StorageProfile/longhorn dry-run failed: no matches for kind "StorageProfile" in version "cdi.kubevirt.io/v1beta1"\n');
    const { error, events } = await run(flux, { fallback: [{ group: 'cdi.kubevirt.io', kind: 'StorageProfile', name: 'storageprofiles.cdi.kubevirt.io', file: 'bootstrap/crds.yaml' }] });
    expect(error?.exitCode).toBe(1);
    expect(error?.message).toContain('flux-system/platform is deadlocked on a second-order CRD');
    expect(error?.hint).toContain('`standup crds` applies storageprofiles.cdi.kubevirt.io (bootstrap/crds.yaml)');
    expect(ends(events)).toMatchObject({ platform: 'failed', apps: 'not-run' });
  });

  it('says "no CRD and no operator known" for a kind nothing provides, instead of a deadlock it cannot be', async () => {
    const flux = new FakeCluster();
    flux.ks('crds', 'ready');
    flux.ks('tools', 'ready');
    flux.ks('platform');
    flux.ks('apps');
    flux.onRequest = (key, o) => flux.fail('platform', requested(o), 'Widget/x dry-run failed: no matches for kind "Widget" in version "nowhere.example.com/v1"');
    const { error } = await run(flux);
    expect(error?.message).toContain('no CRD for it exists anywhere standup can see');
    expect(error?.message).not.toContain('deadlocked');
    expect(error?.hint).toContain('Add the CRD for Widget.nowhere.example.com to git');
  });

  it('does not fail on a failure left from before its own reconcile request', async () => {
    const flux = new FakeCluster();
    const clock = new FakeClock();
    flux.ks('crds', 'ready');
    flux.ks('tools', 'ready');
    flux.ks('platform', 'failed', 'X/y dry-run failed: no matches for kind "X" in version "a.io/v1"');
    flux.ks('apps');
    // The fix (say `standup crds`) happened; the re-reconcile standup requests succeeds.
    flux.onRequest = (key, o) => clock.at(30, () => flux.ready(key.split('/')[1]!, requested(o)));
    const { outcomes, error } = await run(flux, { clock });
    expect(error).toBeUndefined();
    expect(outcomes?.map((x) => x.key)).toContain('flux-system/apps');
  });

  it('asks Flux once more after a one-off failure, and goes on when the second attempt succeeds', async () => {
    const flux = new FakeCluster();
    for (const n of ['crds', 'apps', 'tools']) flux.ks(n, 'ready');
    flux.ks('platform');
    let attempts = 0;
    flux.onRequest = (key, o) => {
      attempts++;
      if (attempts === 1) flux.fail('platform', requested(o), 'kustomize build failed: lstat /tmp/kustomization-1: no such file or directory', 'BuildFailed');
      else flux.ready(key.split('/')[1]!, requested(o));
    };
    const { outcomes, error, events } = await run(flux);
    expect(error).toBeUndefined();
    expect(attempts).toBe(2);
    expect(outcomes?.find((x) => x.key === 'flux-system/platform')?.result).toBe('ok');
    expect(events.some((e) => e.type === 'step-status' && e.message.endsWith('asking Flux once more'))).toBe(true);
  });

  it('asks Flux again, backing off, after transient API failures it would otherwise retry only after retryInterval', async () => {
    const flux = new FakeCluster();
    const clock = new FakeClock();
    for (const n of ['crds', 'apps', 'tools']) flux.ks(n, 'ready');
    flux.ks('platform');
    const requests: number[] = [];
    flux.onRequest = (key, o) => {
      requests.push(clock.now());
      if (requests.length <= 3) flux.fail('platform', requested(o), 'Namespace/platform dry-run failed: Get "https://127.0.0.1:6443/api/v1/namespaces/platform": dial tcp 127.0.0.1:6443: connect: connection refused');
      else flux.ready(key.split('/')[1]!, requested(o));
    };
    const { outcomes, error, events } = await run(flux, { clock });
    expect(error).toBeUndefined();
    expect(requests).toHaveLength(4);
    expect(outcomes?.find((x) => x.key === 'flux-system/platform')?.result).toBe('ok');
    expect(events.filter((e) => e.type === 'step-status' && / asking Flux again \(\d\)$/.test(e.message))).toHaveLength(3);
    // 30 ms doubling, capped at 100 ms.
    expect(requests.slice(1).map((t, i) => t - requests[i]!)).toEqual([30, 60, 100]);
  });

  it('times out with exit 3, naming the tier and its last status', async () => {
    const flux = new FakeCluster();
    for (const n of ['crds', 'platform', 'apps', 'tools']) flux.ks(n);
    const { error, events } = await run(flux, { timeoutMs: 100 });
    expect(error?.exitCode).toBe(3);
    expect(error?.message).toMatch(/flux-system\/crds not Ready after its timeout \(100ms\): waiting to be reconciled/);
    expect(ends(events)).toMatchObject({ crds: 'timeout', platform: 'not-run', tools: 'not-run', apps: 'not-run' });
  });

  it('treats a Ready at an older revision as not converged', async () => {
    const flux = new FakeCluster();
    for (const n of ['crds', 'platform', 'apps', 'tools']) flux.ks(n, 'ready');
    (flux.kustomization('apps')!.status as Record<string, unknown>).lastAppliedRevision = 'main@sha1:' + 'b'.repeat(40);
    flux.onRequest = (key, o) => flux.ready(key.split('/')[1]!, requested(o));
    const { outcomes } = await run(flux);
    expect(outcomes?.find((x) => x.key === 'flux-system/apps')?.result).toBe('ok');
    expect(flux.writes.map((p) => p.id)).toEqual(['Kustomization/flux-system/apps']);
  });

  it('after one tier fails, finishes the tiers that do not depend on it and reports each as the cluster says', async () => {
    const flux = new FakeCluster();
    const clock = new FakeClock();
    for (const n of ['crds', 'platform', 'apps', 'tools']) flux.ks(n);
    flux.onRequest = (key, o) => {
      const name = key.split('/')[1]!;
      if (name === 'platform') flux.fail('platform', requested(o), 'kustomize build failed: accumulating resources: missing.yaml: no such file', 'BuildFailed');
      // tools becomes Ready well after platform has failed for good.
      else clock.at(name === 'tools' ? 150 : 0, () => flux.ready(name, requested(o)));
    };
    const { error, events } = await run(flux, { clock });
    expect(error?.exitCode).toBe(1);
    expect(error?.message).toContain('flux-system/platform failed (BuildFailed)');
    expect(ends(events)).toEqual({ crds: 'ok', platform: 'failed', tools: 'ok', apps: 'not-run' });
  });

  it('on an interrupt, ends every tier with what the cluster says: Ready, still waiting, or never started', async () => {
    const flux = new FakeCluster();
    for (const n of ['crds', 'platform', 'apps', 'tools']) flux.ks(n);
    flux.onRequest = (key, o) => {
      if (key.endsWith('/crds')) flux.ready('crds', requested(o));
    };
    const { error, events } = await run(flux, { abortAfterMs: 200 });
    expect(error?.code).toBe('INTERRUPTED');
    expect(ends(events)).toEqual({ crds: 'ok', platform: 'interrupted', tools: 'interrupted', apps: 'not-run' });
  });

  describe('a HelmRelease the health check waits on', () => {
    const STALLED = "invalid chart reference: failed to get chart version for remote reference: no 'web' chart with version matching '9.9.9' found";
    /** platform applied a HelmRelease (wait: true) and KC runs its health checks for the current revision. */
    function checking(flux: FakeCluster) {
      flux.ks('crds', 'ready');
      flux.ks('tools', 'ready');
      flux.ks('apps');
      const k = flux.ks('platform');
      k.spec = { ...(k.spec as object), wait: true };
      k.status = {
        lastAttemptedRevision: flux.revision,
        inventory: { entries: [{ id: 'apps_web_helm.toolkit.fluxcd.io_HelmRelease', v: 'v2' }] },
        conditions: [
          { type: 'Ready', status: 'Unknown', reason: 'Progressing', message: 'Reconciliation in progress', observedGeneration: 1 },
          { type: 'Reconciling', status: 'True', reason: 'Progressing', message: `Running health checks for revision ${flux.revision} with a timeout of 5m0s`, observedGeneration: 1 },
        ],
      };
      flux.onRequest = (key, o) => {
        if (key !== 'flux-system/platform') flux.ready(key.split('/')[1]!, requested(o));
      };
      flux.put({
        apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', metadata: { name: 'web', namespace: 'apps', generation: 2 },
        spec: { chart: { spec: { chart: 'web', version: '9.9.9', sourceRef: { kind: 'HelmRepository', name: 'charts', namespace: 'flux-system' } } } },
        status: { observedGeneration: 1, conditions: [{ type: 'Ready', status: 'False', reason: 'SourceNotReady', message: `HelmChart 'flux-system/apps-web' is not ready: ${STALLED}`, observedGeneration: 2 }] },
      });
    }
    const chart = (o: { stalled: boolean; generation?: number }) => ({
      apiVersion: 'source.toolkit.fluxcd.io/v1', kind: 'HelmChart', metadata: { name: 'apps-web', namespace: 'flux-system', generation: o.generation ?? 2 },
      spec: { chart: 'web', version: '9.9.9', sourceRef: { kind: 'HelmRepository', name: 'charts' } },
      status: { observedGeneration: 2, conditions: o.stalled ? [{ type: 'Stalled', status: 'True', reason: 'InvalidChartReference', message: STALLED }, { type: 'Ready', status: 'False', reason: 'InvalidChartReference', message: STALLED }] : [{ type: 'Ready', status: 'False', reason: 'ChartPullError', message: 'chart pull error: connection refused' }] },
    });

    it('fails its tier at once when source-controller stalled on its chart, naming both and its words; dependents not evaluated', async () => {
      const flux = new FakeCluster();
      checking(flux);
      flux.put(chart({ stalled: true }));
      const { error, events } = await run(flux, { timeoutMs: 60_000 });
      expect(error?.exitCode).toBe(1);
      expect(error?.message).toBe(`flux-system/platform cannot become Ready: HelmRelease/apps/web cannot get its chart: HelmChart/flux-system/apps-web is Stalled (InvalidChartReference): ${STALLED}`);
      const end = events.find((e) => e.type === 'step-end' && e.id === 'tier:flux-system/platform');
      expect(end).toMatchObject({ result: 'failed', cause: { type: 'chart-source', helmRelease: 'HelmRelease/apps/web', chartSource: 'HelmChart/flux-system/apps-web', stalled: 'HelmChart/flux-system/apps-web', reason: 'InvalidChartReference', message: STALLED, file: null, line: null } });
      expect(events.find((e) => e.type === 'step-end' && e.id === 'tier:flux-system/apps')).toMatchObject({ result: 'not-run', message: 'not run, not evaluated: flux-system/platform failed: HelmRelease/apps/web cannot get its chart' });
    });

    it('waits (to its timeout) on a chart that may still come, or one Stalled for an older generation, and says why', async () => {
      for (const c of [chart({ stalled: false }), chart({ stalled: true, generation: 3 })]) {
        const flux = new FakeCluster();
        checking(flux);
        flux.put(c);
        const { error } = await run(flux, { timeoutMs: 300 });
        expect(error?.code).toBe('WAIT_TIMEOUT');
        expect(error?.message).toContain('flux-system/platform not Ready after its timeout');
        expect(error?.message).toContain('HelmRelease/apps/web waits for HelmChart/flux-system/apps-web: ');
      }
    });
  });
});
