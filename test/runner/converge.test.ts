import { describe, expect, it } from 'vitest';
import type { ClusterClient } from '../../src/cluster/client.js';
import { converge } from '../../src/runner/converge.js';
import type { RunEvent } from '../../src/runner/events.js';
import { LiveState } from '../../src/runner/live-state.js';
import { cluster, ks, plan } from '../helpers/model.js';
import { FakeFlux } from './fake-flux.js';

const chain = () => plan(cluster('dev', [ks('crds'), ks('platform', { dependsOn: ['crds'] }), ks('apps', { dependsOn: ['platform'] }), ks('tools', { dependsOn: ['crds'] })]));

async function run(flux: FakeFlux, o: { timeoutMs?: number; fallback?: { group: string; kind: string; name: string; file: string }[] } = {}) {
  const events: RunEvent[] = [];
  const ac = new AbortController();
  const client = flux as unknown as ClusterClient;
  const live = new LiveState(client, ac.signal);
  await live.start();
  try {
    const outcomes = await converge({ ctx: chain(), client, live, emit: (e) => events.push(e), signal: ac.signal, timeoutFor: () => o.timeoutMs ?? 5000, fallback: o.fallback ?? [], tickMs: 20, retryBackoff: { initialMs: 30, maxMs: 100 } });
    return { outcomes, events };
  } catch (error) {
    return { error: error as Error & { exitCode?: number; hint?: string }, events };
  } finally {
    ac.abort();
  }
}

describe('converge', () => {
  it('requests each tier the moment its dependencies are Ready, in dependency order', async () => {
    const flux = new FakeFlux();
    for (const n of ['crds', 'platform', 'apps', 'tools']) flux.ks(n);
    flux.onRequest = (key, o) => flux.ready(key.split('/')[1]!, o.metadata.annotations!['reconcile.fluxcd.io/requestedAt']);
    const { outcomes } = await run(flux);
    const requested = flux.patches.map((p) => p.key);
    expect(requested[0]).toBe('Kustomization/flux-system/crds');
    expect(requested.indexOf('Kustomization/flux-system/platform')).toBeLessThan(requested.indexOf('Kustomization/flux-system/apps'));
    expect(new Set(requested).size).toBe(4); // each once, never repeated
    expect(outcomes?.map((x) => [x.key, x.result])).toEqual(expect.arrayContaining([['flux-system/apps', 'ok'], ['flux-system/tools', 'ok']]));
  });

  it('skips what is already Ready at the current revision and annotates nothing for it (resume)', async () => {
    const flux = new FakeFlux();
    flux.ks('crds', 'ready');
    flux.ks('platform', 'ready');
    flux.ks('tools', 'ready');
    flux.ks('apps');
    flux.onRequest = (key) => flux.ready(key.split('/')[1]!);
    const { outcomes } = await run(flux);
    expect(outcomes?.filter((x) => x.result === 'skipped').map((x) => x.key).sort()).toEqual(['flux-system/crds', 'flux-system/platform', 'flux-system/tools']);
    expect(flux.patches.map((p) => p.key)).toEqual(['Kustomization/flux-system/apps']);
  });

  it('diagnoses the second-order CRD deadlock and points at the fallback, once Flux has handled the request', async () => {
    const flux = new FakeFlux();
    flux.ks('crds', 'ready');
    flux.ks('platform', 'failed', 'StorageProfile/longhorn dry-run failed: no matches for kind "StorageProfile" in version "cdi.kubevirt.io/v1beta1"\n');
    flux.ks('apps');
    flux.ks('tools', 'ready');
    flux.onRequest = (key, o) => {
      (o.status as Record<string, unknown>).lastHandledReconcileAt = o.metadata.annotations!['reconcile.fluxcd.io/requestedAt'];
      flux.put(o);
    };
    const { error, events } = await run(flux, { fallback: [{ group: 'cdi.kubevirt.io', kind: 'StorageProfile', name: 'storageprofiles.cdi.kubevirt.io', file: 'bootstrap/crds.yaml' }] });
    expect(error?.exitCode).toBe(1);
    expect(error?.message).toContain('flux-system/platform is deadlocked on a second-order CRD');
    expect(error?.hint).toContain('`standup crds` applies storageprofiles.cdi.kubevirt.io (bootstrap/crds.yaml)');
    expect(events.some((e) => e.type === 'step-end' && e.id === 'tier:flux-system/platform' && e.result === 'failed')).toBe(true);
  });

  it('does not fail on a failure left from before its own reconcile request', async () => {
    const flux = new FakeFlux();
    flux.ks('crds', 'ready');
    flux.ks('tools', 'ready');
    flux.ks('platform', 'failed', 'X/y dry-run failed: no matches for kind "X" in version "a.io/v1"');
    flux.ks('apps');
    // The fix (say `standup crds`) happened; the re-reconcile standup requests succeeds.
    flux.onRequest = (key, o) => setTimeout(() => flux.ready(key.split('/')[1]!, o.metadata.annotations!['reconcile.fluxcd.io/requestedAt']), 30);
    const { outcomes, error } = await run(flux);
    expect(error).toBeUndefined();
    expect(outcomes?.map((x) => x.key)).toContain('flux-system/apps');
  });

  it('asks Flux once more after a one-off failure, and goes on when the second attempt succeeds', async () => {
    const flux = new FakeFlux();
    for (const n of ['crds', 'platform', 'apps', 'tools']) flux.ks(n, n === 'platform' ? 'new' : 'ready');
    let attempts = 0;
    flux.onRequest = (key, o) => {
      attempts++;
      const handled = o.metadata.annotations!['reconcile.fluxcd.io/requestedAt'];
      if (attempts === 1) {
        flux.ks('platform', 'failed', 'kustomize build failed: evalsymlink failure on /tmp/kustomization-1: no such file or directory');
        const live = flux.objects.get('Kustomization/flux-system/platform')!;
        (live.status as Record<string, unknown>).conditions = [{ type: 'Ready', status: 'False', reason: 'BuildFailed', message: 'kustomize build failed: lstat /tmp/kustomization-1: no such file or directory' }];
        (live.status as Record<string, unknown>).lastHandledReconcileAt = handled;
        flux.put(live);
      } else flux.ready(key.split('/')[1]!, handled);
    };
    const { outcomes, error, events } = await run(flux);
    expect(error).toBeUndefined();
    expect(attempts).toBe(2);
    expect(outcomes?.find((x) => x.key === 'flux-system/platform')?.result).toBe('ok');
    expect(events.some((e) => e.type === 'step-status' && e.message.endsWith('asking Flux once more'))).toBe(true);
  });

  it('asks Flux again, backing off, after transient API failures it would otherwise retry only after retryInterval', async () => {
    const flux = new FakeFlux();
    for (const n of ['crds', 'platform', 'apps', 'tools']) flux.ks(n, n === 'platform' ? 'new' : 'ready');
    const requests: number[] = [];
    flux.onRequest = (key, o) => {
      requests.push(Date.now());
      const handled = o.metadata.annotations!['reconcile.fluxcd.io/requestedAt'];
      if (requests.length <= 3) {
        flux.ks('platform', 'failed', 'Namespace/platform dry-run failed: Get "https://127.0.0.1:6443/api/v1/namespaces/platform": dial tcp 127.0.0.1:6443: connect: connection refused');
        const live = flux.objects.get('Kustomization/flux-system/platform')!;
        (live.status as Record<string, unknown>).lastHandledReconcileAt = handled;
        flux.put(live);
      } else flux.ready(key.split('/')[1]!, handled);
    };
    const { outcomes, error, events } = await run(flux);
    expect(error).toBeUndefined();
    expect(requests).toHaveLength(4);
    expect(outcomes?.find((x) => x.key === 'flux-system/platform')?.result).toBe('ok');
    const again = events.filter((e) => e.type === 'step-status' && / asking Flux again \(\d\)$/.test(e.message));
    expect(again).toHaveLength(3);
    // Backing off: each wait at least the last one (30, 60, 100 ms), within the timer's tick.
    const gaps = requests.slice(1).map((t, i) => t - requests[i]!);
    expect(gaps[0]).toBeGreaterThanOrEqual(25);
    expect(gaps[2]).toBeGreaterThanOrEqual(90);
  });

  it('times out with exit 3, naming the tier and its last status', async () => {
    const flux = new FakeFlux();
    for (const n of ['crds', 'platform', 'apps', 'tools']) flux.ks(n);
    const { error } = await run(flux, { timeoutMs: 100 });
    expect(error?.exitCode).toBe(3);
    expect(error?.message).toMatch(/flux-system\/(crds) is not Ready after its timeout \(waiting to be reconciled\)/);
  });

  it('treats a Ready at an older revision as not converged', async () => {
    const flux = new FakeFlux();
    for (const n of ['crds', 'platform', 'apps', 'tools']) flux.ks(n, 'ready');
    const stale = flux.objects.get('Kustomization/flux-system/apps')!;
    (stale.status as Record<string, unknown>).lastAppliedRevision = 'main@sha1:' + 'b'.repeat(40);
    flux.onRequest = (key) => flux.ready(key.split('/')[1]!);
    const { outcomes } = await run(flux);
    expect(outcomes?.find((x) => x.key === 'flux-system/apps')?.result).toBe('ok');
    expect(flux.patches.map((p) => p.key)).toEqual(['Kustomization/flux-system/apps']);
  });
});
