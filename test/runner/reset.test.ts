import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/runner/events.js';
import type { RunTarget } from '../../src/runner/inputs.js';
import { runReset } from '../../src/runner/reset.js';
import { cluster, ks, plan } from '../helpers/model.js';
import { FakeCluster } from '../fakes/fake-cluster.js';

function target(flux: FakeCluster, o: Partial<RunTarget> = {}): RunTarget {
  return {
    name: 'dev',
    ctx: plan(cluster('dev', [ks('flux-system', { repoPath: 'clusters/dev' }), ks('apps')])),
    client: flux,
    guard: { cluster: 'dev', expectedContext: 'fake', actualContext: 'fake', actualServer: flux.server, pinned: true },
    timeouts: { defaultMs: 5000, tiers: {}, overallMs: Infinity },
    resettable: true,
    problems: [],
    fallback: { files: [], objects: [], crds: [] },
    crdKnowledge: { runtimeCrds: [], groupsInGit: new Set(), externalCrds: [] },
    bootstrap: null,
    installsFlux: false,
    ...o,
  };
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
    flux.put({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'kustomizations.kustomize.toolkit.fluxcd.io' } });
    flux.put({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'gitrepositories.source.toolkit.fluxcd.io' } });
    const events: RunEvent[] = [];
    const r = await runReset(target(flux), { emit: (e) => events.push(e), signal: new AbortController().signal, pollMs: 1 });
    expect(r.exitCode).toBe(0);
    expect(r.message).toContain('the root sync flux-system/flux-system is left suspended (`standup up` resumes it)');
    const root = flux.kustomization('flux-system')!;
    expect((root.spec as { suspend?: boolean }).suspend).toBe(true);
    expect(root.metadata.annotations?.['standup.io/suspended-by']).toMatch(/^standup reset at /);
    expect(flux.kustomization('apps')).toBeUndefined();
  });
});
