// The up benchmark's generator: a cluster model -> the benchmark graph (scripts/bench/up/corpus-graph.ts), and a graph
// -> an inert repository (scripts/bench/up/generate.ts) that standup's own loader reads back as the same graph.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { graphFromModel } from '../../scripts/bench/up/corpus-graph.js';
import { generateRepository, nameProblems, readinessDelay, writeFiles } from '../../scripts/bench/up/generate.js';
import { graphKeys, keyOf, levelCount, specProblems } from '../../scripts/bench/up/graph-spec.js';
import { deepChain, syntheticGraph, wideFan } from '../../scripts/bench/up/synthetic.js';
import { loadRepository } from '../../src/load/load-repository.js';
import { planCluster } from '../../src/plan/plan.js';
import { cluster, ks, obj } from '../helpers/model.js';

const hr = (ns: string, name: string, owner: string, dependsOn?: { name: string; namespace?: string }[]) => ({ ...obj('helm.toolkit.fluxcd.io/v2', 'HelmRelease', name, owner, { spec: { ...(dependsOn ? { dependsOn } : {}) } }), namespace: ns });
const root = ks('flux-system', { repoPath: 'clusters/dev', path: './clusters/dev' });

function model() {
  const apps = ks('apps', {
    parent: 'flux-system/flux-system',
    raw: {
      spec: {
        healthChecks: [
          { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', name: 'pg', namespace: 'db' },
          { apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'cilium-agent', namespace: 'kube-system' },
          { apiVersion: 'cert-manager.io/v1', kind: 'ClusterIssuer', name: 'letsencrypt' },
          { apiVersion: 'v1', kind: 'Secret', name: 'made-elsewhere', namespace: 'flux-system' },
          { apiVersion: 'kustomize.toolkit.fluxcd.io/v1', kind: 'Kustomization', name: 'infra' },
        ],
      },
    },
    wait: false,
  });
  const infra = ks('infra', { parent: 'flux-system/flux-system', timeout: '5m', raw: { spec: { retryInterval: '1m' } } });
  const web = ks('web', { parent: 'flux-system/apps', dependsOn: ['apps', 'gone'] });
  return cluster('dev', [root, apps, infra, web], [
    { ...obj('v1', 'Namespace', 'db', 'flux-system/infra') },
    hr('db', 'pg', 'flux-system/infra'),
    hr('kube-system', 'cilium', 'flux-system/infra'),
    obj('cert-manager.io/v1', 'ClusterIssuer', 'letsencrypt', 'flux-system/infra'),
    hr('web', 'site', 'flux-system/web', [{ name: 'pg', namespace: 'db' }, { name: 'nope', namespace: 'x' }]),
    obj('v1', 'ConfigMap', 'left-out', 'flux-system/web'),
  ]);
}

describe('graphFromModel', () => {
  const g = graphFromModel('dev', 'a test model', model());
  const tier = (name: string) => g.tiers.find((t) => t.name === name)!;

  it('keeps every Kustomization with its parent, timeouts and the dependsOn that resolve; the root sync stays in the entry', () => {
    expect(graphKeys(g)).toEqual(['flux-system/flux-system', 'flux-system/apps', 'flux-system/infra', 'flux-system/web']);
    expect(g.root).toMatchObject({ name: 'flux-system', inEntry: true });
    expect(tier('web')).toMatchObject({ parent: 'flux-system/apps', dependsOn: ['flux-system/apps'], wait: true });
    expect(tier('infra')).toMatchObject({ timeout: '5m', retryInterval: '1m', interval: '10m' });
    expect(specProblems(g)).toEqual([]);
    expect(g.notes).toContain('flux-system/web dependsOn flux-system/gone, which this cluster does not have: left out (Flux would wait on it forever)');
  });

  it('the same HelmReleases in the same tiers, their dependsOn on each other kept; a ConfigMap where there is none', () => {
    expect(tier('infra').helmReleases.map(keyOf)).toEqual(['db/pg', 'kube-system/cilium']);
    expect(tier('web').helmReleases).toEqual([{ namespace: 'web', name: 'site', dependsOn: ['db/pg'] }]);
    expect(g.notes).toContain('1 HelmRelease dependsOn entries name a HelmRelease this cluster does not apply; left out (they would wait forever)');
    expect(tier('apps').configMaps[0]).toEqual({ namespace: 'flux-system', name: 'bench-apps' });
    expect(tier('web').configMaps).toEqual([]);
  });

  it('healthChecks point at what the generated repository creates', () => {
    expect(tier('apps').healthChecks).toEqual([
      { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', name: 'pg', namespace: 'db' },
      // cilium's DaemonSet is made by the cilium chart at runtime: the check waits for that release.
      { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', name: 'cilium', namespace: 'kube-system' },
      // The ClusterIssuer is rendered by infra: a stand-in there.
      { apiVersion: 'v1', kind: 'ConfigMap', name: 'hc-clusterissuer-letsencrypt', namespace: 'flux-system' },
      // Nothing in the cluster makes the Secret: a stand-in the tier applies itself.
      { apiVersion: 'v1', kind: 'ConfigMap', name: 'hc-secret-made-elsewhere', namespace: 'flux-system' },
      { apiVersion: 'kustomize.toolkit.fluxcd.io/v1', kind: 'Kustomization', name: 'infra', namespace: 'flux-system' },
    ]);
    expect(tier('infra').configMaps).toContainEqual({ namespace: 'flux-system', name: 'hc-clusterissuer-letsencrypt' });
    expect(tier('apps').configMaps).toContainEqual({ namespace: 'flux-system', name: 'hc-secret-made-elsewhere' });
  });

  it('Namespaces as the real tiers apply them, and the one nothing ordered before its release', () => {
    expect(tier('infra').namespaces).toEqual(['db']);
    expect(tier('web').namespaces).toEqual(['web']);
    expect(g.notes.some((n) => n.includes('web (in flux-system/web)'))).toBe(true);
  });

  it('a root sync the entry does not apply is added outside it, under a name no Kustomization has', () => {
    const m = model();
    const noRoot = { ...m, kustomizations: m.kustomizations.filter((k) => k.name !== 'flux-system').map((k) => (k.parent === 'flux-system/flux-system' ? { ...k, parent: null } : k)) };
    const g2 = graphFromModel('dev', 'no root', noRoot);
    expect(g2.root).toMatchObject({ namespace: 'flux-system', name: 'flux-system', inEntry: false });
    expect(graphKeys(g2)).not.toContain('flux-system/flux-system');
    expect(generateRepository(g2, { gitUrl: (r) => `http://git/${r}.git`, chartUrl: 'http://charts', seed: 1, context: 'ctx' }).syncDir).toBe('bootstrap/sync');
  });
});

describe('readinessDelay', () => {
  it('is fixed by the seed and the release, within the range, to 0.1 s', () => {
    const a = readinessDelay(1, 'db/pg');
    expect(readinessDelay(1, 'db/pg')).toBe(a);
    expect(a).toBeGreaterThanOrEqual(1);
    expect(a).toBeLessThanOrEqual(5);
    expect(Math.round(a * 10) / 10).toBe(a);
    const draws = Array.from({ length: 200 }, (_, i) => readinessDelay(7, `ns/r${i}`, [2, 3]));
    expect(Math.min(...draws)).toBeGreaterThanOrEqual(2);
    expect(Math.max(...draws)).toBeLessThanOrEqual(3);
    expect(new Set(draws).size).toBeGreaterThan(5);
    expect(draws.filter((d, i) => d !== readinessDelay(8, `ns/r${i}`, [2, 3])).length).toBeGreaterThan(100);
  });
});

describe('generateRepository', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
  const opts = { gitUrl: (r: string) => `http://127.0.0.1:9/${r}.git`, chartUrl: 'http://127.0.0.1:9/charts/bench', seed: 3, context: 'standup-testbed' };

  it('writes HelmReleases of the loopback chart with their delays, and Kustomizations with explicit namespaces', () => {
    const g = graphFromModel('dev', 'a test model', model());
    const r = generateRepository(g, opts);
    const docs = (f: string) => parseAllDocuments(r.files[f]!).map((d) => d.toJS() as Record<string, any>); // eslint-disable-line @typescript-eslint/no-explicit-any
    const pg = docs('ks/flux-system/infra/helmreleases.yaml')[0]!;
    expect(pg.spec.chart.spec).toEqual({ chart: 'bench-app', version: '1.0.0', sourceRef: { kind: 'HelmRepository', name: 'standup-bench', namespace: 'flux-system' }, interval: '1h' });
    expect(pg.spec.values.readyAfter).toBe(String(r.delays['db/pg']));
    const web = docs('ks/flux-system/apps/kustomizations.yaml').find((d) => d.metadata.name === 'web')!;
    expect(web.spec).toMatchObject({ path: './ks/flux-system/web', wait: true, dependsOn: [{ name: 'apps', namespace: 'flux-system' }], sourceRef: { kind: 'GitRepository', name: 'flux-system', namespace: 'flux-system' } });
    const sync = docs('clusters/dev/flux-system/gotk-sync.yaml');
    expect(sync.map((d) => `${d.kind}/${d.metadata.name}`)).toEqual(['GitRepository/flux-system', 'Kustomization/flux-system', 'HelmRepository/standup-bench']);
    expect(sync[0]!.spec.url).toBe('http://127.0.0.1:9/bench.git');
    expect(nameProblems(g)).toEqual([]);
    expect(nameProblems({ ...g, tiers: [{ ...g.tiers[0]!, helmReleases: [{ namespace: 'x', name: 'One_Password', dependsOn: [] }] }] })).toHaveLength(1);
  });

  it.each([['deep-6', deepChain(6)], ['wide-5', wideFan(5)]])('standup loads the generated %s back as the same graph (real kustomize)', async (_n, g) => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'standup-bench-gen-'));
    dirs.push(dir);
    writeFiles(dir, generateRepository(g, opts).files);
    const repo = await loadRepository({ repo: dir, clusters: ['bench'], scope: 'graph' });
    expect(repo.problems).toEqual([]);
    const p = planCluster(repo.clusters[0]!).plan;
    expect(p.kustomizations.map((k) => k.key).sort()).toEqual(graphKeys(g).sort());
    expect(p.kustomizations.flatMap((k) => k.dependsOn.map((d) => `${k.key}->${d}`)).sort()).toEqual(g.tiers.flatMap((t) => t.dependsOn.map((d) => `${keyOf(t)}->${d}`)).sort());
    // The root sync has no dependsOn: it shares level 0 with the first tier.
    expect(p.levels.length).toBe(g.name.startsWith('deep') ? 6 : 2);
  });

  it('names the synthetic graphs', () => {
    expect(syntheticGraph('chain-8')!.tiers).toHaveLength(8);
    expect(syntheticGraph('wide-1000')!.tiers[999]!.dependsOn).toEqual(['flux-system/tier-1']);
    expect(syntheticGraph('sulibot')).toBeNull();
    expect(syntheticGraph('deep-0')).toBeNull();
  });
});

describe('levelCount', () => {
  it('counts dependsOn levels as the plan does', () => {
    expect(levelCount(deepChain(7))).toBe(7);
    expect(levelCount(wideFan(30))).toBe(2);
    expect(levelCount(graphFromModel('dev', 'm', model()))).toBe(2);
  });
});
