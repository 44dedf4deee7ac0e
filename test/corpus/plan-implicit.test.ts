// plan's implicitDependsOn on real repositories: plan (scope 'graph') builds only the tiers that may hold a
// HelmRelease dependsOn or its target, and must still find every hidden HelmRelease order that a full load (what
// check builds) finds. joryirving adds most of its dependsOn with component patches (kopiur, postgres, dragonfly,
// gpu: `op: add, path: /spec/dependsOn/-`), in app tiers whose Kustomizations do not depend on the target's.
import { describe, expect, it } from 'vitest';
import { loadRepository } from '../../src/load/load-repository.js';
import { planCluster } from '../../src/plan/plan.js';
import { implicitDependsOn } from '../../src/plan/helm-order.js';
import { repoDir } from './corpus.js';

async function edges(dir: string, entry: string, scope: 'graph' | 'all') {
  const r = await loadRepository({ repo: repoDir(dir), path: entry, scope, helmOrders: scope === 'graph', cache: false });
  const c = r.clusters[0]!;
  const { graph } = planCluster(c, new Set(r.config.exclude));
  const built = c.kustomizations.filter((k) => k.expansion === 'built').length;
  const list = [...implicitDependsOn(c, graph)].flatMap(([k, l]) => l.map((d) => `${k} -> ${d.namespace}/${d.name} (${d.via.from} -> ${d.via.to})`)).sort();
  return { list, built, total: c.kustomizations.length };
}

describe('implicitDependsOn: plan finds what a full load finds', () => {
  it('joryirving: 119 hidden HelmRelease orders, most added by component patches, with half the tiers left unbuilt', async () => {
    const plan = await edges('joryirving__home-ops', 'kubernetes/clusters/main', 'graph');
    const full = await edges('joryirving__home-ops', 'kubernetes/clusters/main', 'all');
    expect(plan.list).toEqual(full.list);
    expect(plan.list).toHaveLength(119);
    // The kopiur component's patch adds both dependsOn to every app that uses it.
    expect(plan.list).toContain('downloads/autobrr -> storage/kopiur (HelmRelease/downloads/autobrr -> HelmRelease/storage/kopiur)');
    expect(plan.list).toContain('downloads/autobrr -> rook-ceph/rook-ceph-cluster (HelmRelease/downloads/autobrr -> HelmRelease/rook-ceph/rook-ceph-cluster)');
    // Written in the HelmRelease itself.
    expect(plan.list).toContain('downloads/prowlarr -> database/cloudnative-pg (HelmRelease/downloads/prowlarr -> HelmRelease/database/cloudnative-pg)');
    // Leaf tiers with no such HelmRelease stay unbuilt (the point of scope 'graph').
    expect(plan.built).toBeLessThan(full.built - 50);
  });

  it('sulibot: the one hidden order (tqm waits for qbittorrent) and nothing else', async () => {
    const plan = await edges('sulibot__home-ops', 'kubernetes/clusters/cluster-101', 'graph');
    const full = await edges('sulibot__home-ops', 'kubernetes/clusters/cluster-101', 'all');
    expect(plan.list).toEqual(full.list);
    expect(plan.list).toEqual(['flux-system/tqm -> flux-system/qbittorrent (HelmRelease/default/tqm -> HelmRelease/default/qbittorrent)']);
  });
});
