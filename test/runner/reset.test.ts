import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/runner/events.js';
import { prunedObjects, runReset } from '../../src/runner/reset.js';
import { FakeCluster } from '../fakes/fake-cluster.js';
import { runTarget } from '../fakes/run-target.js';

const target = runTarget;

/** A reset of a cluster that has Flux's Kustomization and GitRepository kinds. */
async function resetWithFluxCrds(flux: FakeCluster) {
  for (const name of ['kustomizations.kustomize.toolkit.fluxcd.io', 'gitrepositories.source.toolkit.fluxcd.io']) {
    flux.put({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name } });
  }
  const events: RunEvent[] = [];
  const r = await runReset(target(flux), { emit: (e) => events.push(e), signal: new AbortController().signal, pollMs: 1 });
  return { events, r };
}

describe('reset', () => {
  it('with --up, refuses a graph that cannot converge before it deletes anything', async () => {
    const flux = new FakeCluster();
    flux.ks('flux-system', 'ready');
    flux.ks('apps', 'ready');
    flux.put({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'kustomizations.kustomize.toolkit.fluxcd.io' } });
    const cycle = { code: 'cycle' as const, severity: 'error' as const, message: 'dependency cycle: a -> b -> a', file: 'clusters/dev/a.yaml', line: 3, object: 'Kustomization/flux-system/a', cluster: 'dev' };
    const events: RunEvent[] = [];
    const r = await runReset(target(flux, { problems: [cycle] }), { emit: (e) => events.push(e), signal: new AbortController().signal, up: true });
    expect(r.exitCode).toBe(2);
    expect(flux.writes).toEqual([]);
    expect(events.filter((e) => e.type === 'step-start').map((e) => (e as { id: string }).id)).toEqual(['check']);
  });

  it('says the root sync stays suspended, and records that standup suspended it', async () => {
    const flux = new FakeCluster();
    flux.ks('flux-system', 'ready');
    flux.ks('apps', 'ready');
    const { r } = await resetWithFluxCrds(flux);
    expect(r.exitCode).toBe(0);
    expect(r.message).toContain('the root sync flux-system/flux-system is left suspended (`standup up` resumes it)');
    const root = flux.kustomization('flux-system')!;
    expect((root.spec as { suspend?: boolean }).suspend).toBe(true);
    expect(root.metadata.annotations?.['standup.io/suspended-by']).toMatch(/^standup reset at /);
    expect(flux.kustomization('apps')).toBeUndefined();
  });

  it('on a cluster without the root Kustomization: skips the suspension and never says it suspended anything', async () => {
    const flux = new FakeCluster();
    flux.ks('apps', 'ready');
    const { events, r } = await resetWithFluxCrds(flux);
    expect(r.exitCode).toBe(0);
    expect(r.message).toBe('reset done');
    expect(events.find((e) => e.type === 'step-end' && e.id === 'suspend')).toMatchObject({ result: 'skipped', message: 'flux-system/flux-system is not on the cluster: nothing to suspend' });
    expect(events.some((e) => e.type === 'change' && (e as { change: { kind: string } }).change.kind === 'suspend')).toBe(false);
    expect(JSON.stringify(events)).not.toContain('stays suspended');
    expect(flux.kustomization('flux-system')).toBeUndefined();
    expect(flux.kustomization('apps')).toBeUndefined();
  });

  it('waits for the Namespaces and CRDs a tier pruned to be gone, so an up right after does not meet them terminating', async () => {
    const flux = new FakeCluster();
    flux.ks('flux-system', 'ready');
    const apps = flux.ks('apps', 'ready');
    const crd = (name: string) => ({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name } });
    flux.put(crd('kustomizations.kustomize.toolkit.fluxcd.io'));
    flux.put(crd('gitrepositories.source.toolkit.fluxcd.io'));
    // Prune deleted them, and they are still finishing (a CRD first deletes every object of its kind).
    flux.put({ ...crd('widgets.example.com'), metadata: { name: 'widgets.example.com', deletionTimestamp: '2026-12-01T00:00:00Z' } });
    flux.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'apps', deletionTimestamp: '2026-12-01T00:00:00Z' } });
    Object.assign(apps, { spec: { ...(apps.spec as object), prune: true }, status: { ...(apps.status as object), inventory: { entries: [
      { id: '_apps__Namespace', v: 'v1' }, { id: '_widgets.example.com_apiextensions.k8s.io_CustomResourceDefinition', v: 'v1' }, { id: 'apps_web_apps_Deployment', v: 'v1' },
    ] } } });
    const events: RunEvent[] = [];
    let goneAt = 0;
    setTimeout(() => {
      goneAt = events.length;
      flux.objects.delete('Namespace//apps');
      flux.objects.delete('CustomResourceDefinition//widgets.example.com');
      flux.notify();
    }, 50);
    const r = await runReset(target(flux), { emit: (e) => events.push(e), signal: new AbortController().signal, pollMs: 1 });
    expect(r.exitCode).toBe(0);
    const end = events.findIndex((e) => e.type === 'step-end' && e.id === 'namespaces');
    expect(end).toBeGreaterThanOrEqual(goneAt);
    expect(events[end]).toMatchObject({ result: 'ok', message: '1 Namespaces and 1 CRDs gone' });
  });

  it('reads pruned Namespaces and CRDs from the inventory, only when prune is on', () => {
    const live = (prune: boolean) => ({ apiVersion: 'kustomize.toolkit.fluxcd.io/v1', kind: 'Kustomization', metadata: { name: 'a', namespace: 'flux-system' }, spec: { prune },
      status: { inventory: { entries: [{ id: '_db__Namespace' }, { id: '_pgs.acid.zalan.do_apiextensions.k8s.io_CustomResourceDefinition' }, { id: 'db_x__ConfigMap' }, { id: 'db_y_apiextensions.k8s.io_Other' }] } } });
    expect(prunedObjects(live(true))).toEqual({ namespaces: ['db'], crds: ['pgs.acid.zalan.do'] });
    expect(prunedObjects(live(false))).toEqual({ namespaces: [], crds: [] });
    expect(prunedObjects(undefined)).toEqual({ namespaces: [], crds: [] });
  });
});
