// Every corpus repository and each of its cluster entry points (../shared/corpus/INDEX.md) loads without a crash;
// every Kustomization matches a Flux Kustomization document of the static inventory; every problem is real.
// Counts are the INDEX's "n" per entry unless a comment says why the real build gives another number.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isExpanded, type ClusterModel, type FluxKustomization } from '../../src/model/flux.js';
import { loadRepository, type LoadedRepository } from '../../src/load/load-repository.js';
import { planCluster } from '../../src/plan/plan.js';
import { dependsOnMismatches, notInInventory, repoDir, resolvedEdges, summary, unrealBuildFailure } from './corpus.js';

interface Case {
  dir: string;
  /** name → [entry, Kustomizations, resolved dependsOn edges] */
  clusters: Record<string, [string, number, number]>;
  /** `${cluster}:${code}` → count, for every problem. */
  problems: Record<string, number>;
  /** Extra, repository-specific checks. */
  more?: (r: LoadedRepository, c: (name: string) => ClusterModel) => void | Promise<void>;
}

const cases: Case[] = [
  {
    dir: 'onedr0p__home-ops',
    clusters: { cluster: ['kubernetes/flux/cluster', 78, 19] },
    // sonarr/app: its configMapGenerator scripts (*.sh) are not in the corpus.
    // CLOUDFLARE_TUNNEL_ID comes from Secret cloudflare-tunnel-id-secret, which an ExternalSecret creates in the
    // cluster: not in git, so the variable is unknown (a warning), never "undefined".
    problems: { 'cluster:build-failed': 1, 'cluster:unresolved-substitution': 1 },
    more: (r, c) => {
      const w = r.problems.find((p) => p.code === 'unresolved-substitution')!;
      expect(w.severity).toBe('warning');
      expect(w.message).toContain('CLOUDFLARE_TUNNEL_ID');
      expect(w.message).toContain('cloudflare-tunnel-id-secret');
      // 77 of 78 children have no metadata.namespace: it comes from each namespace folder's kustomization.yaml.
      const ks = c('cluster').kustomizations;
      expect(ks.filter((k) => k.namespace === 'flux-system').length).toBeLessThan(10);
      expect(ks.find((k) => k.name === 'cluster-apps')?.key).toBe('flux-system/cluster-apps');
      expect(ks.filter((k) => k.parent === 'flux-system/cluster-apps')).toHaveLength(77);
    },
  },
  {
    dir: 'bjw-s-labs__home-ops',
    clusters: { cluster: ['kubernetes/flux/cluster', 93, 63] },
    // envoy-gateway/gateway (.lua), searxng (.toml), webhook (.sh): generator inputs not in the corpus.
    problems: { 'cluster:build-failed': 3 },
    more: (_r, c) => {
      // Most edges name another namespace explicitly (kopiur in `system`): keys keep it.
      const ks = c('cluster').kustomizations;
      expect(ks.filter((k) => k.dependsOn.some((d) => d.key === 'system/kopiur')).length).toBeGreaterThanOrEqual(30);
    },
  },
  {
    dir: 'joryirving__home-ops',
    clusters: {
      main: ['kubernetes/clusters/main', 160, 60],
      test: ['kubernetes/clusters/test', 31, 12],
      utility: ['kubernetes/clusters/utility', 59, 13],
    },
    // sabnzbd, sonarr, webhook (main) and acars (utility): generator inputs (.sh, .py) not in the corpus.
    // games/fenrir-crds reads GitRepository fenrir (github.com/shrinedogg/fenrir): another repository, not expanded.
    problems: { 'main:build-failed': 3, 'utility:build-failed': 1, 'main:external-source': 1 },
    more: (_r, c) => {
      // The parent's kustomize replacements set spec.targetNamespace on every child, and the child is keyed in the
      // namespace of its folder's kustomization.yaml.
      const arc = c('test').kustomizations.find((k) => k.name === 'actions-runner-controller')!;
      expect(arc.key).toBe('actions-runner-system/actions-runner-controller');
      expect(arc.targetNamespace).toBe('actions-runner-system');
      // The same base app is a different node per cluster: the graph is per cluster.
      expect(c('main').kustomizations.length).not.toBe(c('utility').kustomizations.length);
    },
  },
  {
    dir: 'billimek__k8s-gitops',
    clusters: { cluster: ['setup/flux/cluster', 2, 1] },
    problems: {},
    more: (_r, c) => {
      expect(c('cluster').kustomizations.map((k) => k.key).sort()).toEqual(['flux-system/cluster-apps', 'flux-system/flux-repositories']);
      expect(c('cluster').kustomizations.find((k) => k.name === 'cluster-apps')!.dependsOn.map((d) => d.key)).toEqual([
        'flux-system/flux-repositories',
      ]);
    },
  },
  {
    dir: 'toboshii__home-ops',
    // INDEX counts 11 from the root. Three tiers fail to build, so the 4 Kustomizations inside them are not found:
    // apps (kopia's repository.config) and core (rook's backup.sh) lack generator inputs the corpus left out, and
    // crds lists CRDs by https URL, which needs the network. Flux would stop at the same three builds.
    clusters: { flux: ['cluster/flux', 7, 4] },
    // flux-installation reads GitRepository flux-installation (github.com/fluxcd/flux2): not expanded.
    problems: { 'flux:build-failed': 3, 'flux:external-source': 1 },
    more: (_r, c) => {
      // The self-applying root (flux-cluster reconciles cluster/flux, which holds itself) is one node, rendered once.
      const ks = c('flux').kustomizations;
      expect(ks.filter((k) => k.name === 'flux-cluster')).toHaveLength(1);
      expect(ks.find((k) => k.name === 'flux-cluster')!.repoPath).toBe('cluster/flux');
    },
  },
  {
    dir: 'sulibot__home-ops',
    clusters: {
      'cluster-101': ['kubernetes/clusters/cluster-101', 135, 340],
      // Stale roots still in the tree (INDEX). cluster-104's own kustomization.yaml has a configMapGenerator whose
      // backup.sh the corpus left out, so its entry does not build and nothing below it can be found.
      'cluster-104': ['kubernetes/clusters/cluster-104', 0, 0],
      // production is not a cluster: its kustomization.yaml leaves flux-system/ out (the live root cluster-101's
      // lists it), so its root sync is never re-read from git; discovery leaves it out and says so (below).
      flux: ['kubernetes/flux', 1, 0],
    },
    problems: {
      // authentik, notifier, sonarr-4k: generator inputs (.css, .sh) not in the corpus.
      'cluster-101:build-failed': 3,
      'cluster-104:build-failed': 1,
      // CLOUDFLARE_TUNNEL_ID comes from a Secret an ExternalSecret makes in the cluster: unknown, a warning.
      'cluster-101:unresolved-substitution': 1,
      'null:discovery': 1,
    },
    more: async (r, c) => {
      const note = r.problems.find((p) => p.code === 'discovery')!;
      expect(note).toMatchObject({ severity: 'info', file: 'kubernetes/clusters/production/flux-system/gotk-sync.yaml', line: 19 });
      expect(note.message).toContain('kubernetes/clusters/cluster-101/flux-system/gotk-sync.yaml');
      // Named by --path, the old root still loads, with what made it a poor twin: 8 of its 336 edges point at
      // flux-system/flux-system, which its entry does not apply, and its `apps` has no postBuild, so
      // `${CNPG_RECOVERY_MODE:=false}` is never substituted and the two postgres-vectorchord paths do not exist.
      const old = await loadRepository({ repo: repoDir('sulibot__home-ops'), path: 'kubernetes/clusters/production' });
      expect(old.clusters[0]!.kustomizations).toHaveLength(132);
      expect(summary(old.problems)).toEqual({ 'production:build-failed': 3, 'production:unresolved-substitution': 1, 'production:path-missing': 2 });
      const live = c('cluster-101').kustomizations;
      // In the live root, tier-1's postBuild substitutes the default: the real folder is app-false.
      expect(live.find((k) => k.name === 'postgres-vectorchord')!.repoPath).toBe('kubernetes/apps/tier-1-infrastructure/postgres-vectorchord/app-false');
      for (const p of r.problems.filter((x) => x.code === 'path-missing')) expect(p.message).toContain('${CNPG_RECOVERY_MODE:=false}');
      // Gate tier storage-ready: INDEX counts 70 dependents over every file; 57 of them are reachable from this root.
      expect(live.filter((k) => k.dependsOn.some((d) => d.key === 'flux-system/storage-ready'))).toHaveLength(57);
      // The dangling kiali -> jaeger edge: kiali is commented out of tier-1's kustomization.yaml ("kiali disabled"),
      // so no live root applies it. Loading its folder directly shows the dependsOn that no Kustomization satisfies.
      expect(live.some((k) => k.name === 'kiali')).toBe(false);
      const kiali = await loadRepository({ repo: repoDir('sulibot__home-ops'), path: 'kubernetes/apps/tier-1-infrastructure/kiali' });
      const k = kiali.clusters[0]!.kustomizations.find((x) => x.name === 'kiali')!;
      expect(k.dependsOn.map((d) => d.key)).toContain('flux-system/jaeger');
      expect(live.some((x) => x.key === 'flux-system/jaeger')).toBe(false);
      expect(kiali.clusters[0]!.kustomizations.some((x) => x.key === 'flux-system/jaeger')).toBe(false);
    },
  },
  {
    dir: 'fluxcd__flux2-kustomize-helm-example',
    clusters: {
      production: ['clusters/production', 3, 2],
      staging: ['clusters/staging', 3, 2],
    },
    problems: {},
    more: (_r, c) => {
      // sourceRef.kind ExternalArtifact, made by clusters/<env>/artifacts.yaml's ArtifactGenerator from this
      // repository: rendered from the generated artifact, whose `./controllers` is infrastructure/controllers and
      // whose `./staging` and `./production` are apps/<env> (with apps/base beside them, as `../base/podinfo` needs).
      for (const env of ['staging', 'production']) {
        const m = c(env);
        expect(m.externalSources).toEqual([]);
        const owned = (owner: string) => m.objects.filter((o) => o.owner === `flux-system/${owner}`).map((o) => `${o.kind}/${o.name} ${o.origin.file}:${o.origin.line}`);
        expect(owned('infra-controllers')).toContain('HelmRelease/cert-manager infrastructure/controllers/cert-manager.yaml:26');
        expect(owned('infra-configs')).toContain('ClusterIssuer/letsencrypt infrastructure/configs/cluster-issuers.yaml:5');
        expect(owned('apps')).toContain('HelmRelease/podinfo apps/base/podinfo/release.yaml:4');
        // Each environment's values patch reached its own HelmRelease: the two clusters' artifacts differ.
        const values = m.objects.find((o) => o.kind === 'HelmRelease' && o.name === 'podinfo')!.raw.spec as { values?: unknown };
        expect(JSON.stringify(values.values)).toContain(env === 'staging' ? 'staging' : 'production');
      }
    },
  },
  {
    dir: 'fluxcd__flux2-multi-tenancy',
    clusters: {
      production: ['clusters/production', 5, 2],
      staging: ['clusters/staging', 5, 2],
    },
    // kyverno-controller reads an OCIRepository; the dev-team tenant a GitRepository whose URL cannot be compared
    // with this repository's (the bootstrap placeholder declares no root GitRepository): both not expanded.
    problems: { 'production:external-source': 2, 'staging:external-source': 2 },
    more: (_r, c) => {
      // The tenant's GitRepository is another repository URL; kyverno-controller reads an OCIRepository.
      expect(c('staging').externalSources.map((e) => e.ref.kind).sort()).toEqual(['GitRepository', 'OCIRepository']);
      // The base dev-team has no spec.path; the tenants/<env> overlay patches it in.
      expect(c('staging').kustomizations.find((k) => k.name === 'dev-team')!.path).toBe('./staging');
      expect(c('staging').kustomizations.find((k) => k.name === 'dev-team')!.key).toBe('apps/dev-team');
    },
  },
  {
    dir: 'fluxcd__flux2-hub-spoke-example',
    clusters: { hub: ['hub', 8, 6] },
    problems: {},
    more: (_r, c) => {
      // The same four names in two namespaces: keys are namespace/name.
      const keys = c('hub').kustomizations.map((k) => k.key).sort();
      expect(keys).toEqual([
        'production/apps',
        'production/infra-configs',
        'production/infra-controllers',
        'production/tenants',
        'staging/apps',
        'staging/infra-configs',
        'staging/infra-controllers',
        'staging/tenants',
      ]);
    },
  },
  {
    dir: 'controlplaneio-fluxcd__d1-fleet',
    clusters: {
      // INDEX counts 10 per cluster without patches. The prod tenants' spec.patches delete two Kustomizations by
      // label (FLUX.md §5 "This shapes the graph"), so prod-eu and prod-us have 8: the build is right.
      'prod-eu': ['clusters/prod-eu', 8, 4],
      'prod-us': ['clusters/prod-us', 8, 4],
      staging: ['clusters/staging', 10, 4],
    },
    // The tenants read d1-infra and d1-apps, other repositories: 6 Kustomizations not expanded in each prod cluster,
    // 8 in staging (flux-infra-update-policies and apps-update/flux-apps too).
    problems: { 'prod-eu:external-source': 6, 'prod-us:external-source': 6, 'staging:external-source': 8 },
    more: (_r, c) => {
      // ${ENVIRONMENT} in child paths is filled by the parent's postBuild from ConfigMap flux-runtime-info.
      const mc = c('staging').kustomizations.find((k) => k.name === 'monitoring-controllers')!;
      expect(mc.path).toBe('components/monitoring/controllers/staging');
      expect(c('prod-eu').kustomizations.find((k) => k.name === 'monitoring-controllers')!.path).toBe('components/monitoring/controllers/production');
      // Those paths live in the companion repositories (d1-infra, d1-apps): external GitRepositories.
      expect(mc.repoPath).toBeNull();
      expect(c('staging').externalSources.some((e) => e.url?.includes('d1-infra'))).toBe(true);
      expect(c('prod-eu').kustomizations.some((k) => k.name === 'flux-infra-update-policies')).toBe(false);
    },
  },
  {
    dir: 'artazar__flux2-general',
    clusters: {
      'demo-000': ['clusters/demo-000', 9, 5],
      'demo-001': ['clusters/demo-001', 9, 5],
    },
    // The crds tier lists CRDs by https URL: it builds only with network access (none here).
    problems: { 'demo-000:build-failed': 1, 'demo-001:build-failed': 1 },
    more: (r) => {
      for (const p of r.problems) expect(p.message).toMatch(/https:\/\//);
      // The three commented-out `dependsOn: crds` Kustomizations are not nodes.
    },
  },
];

for (const tc of cases) {
  describe(tc.dir, () => {
    let r: LoadedRepository;
    const cluster = (name: string) => {
      const c = r.clusters.find((x) => x.name === name);
      if (!c) throw new Error(`no cluster ${name}; have ${r.clusters.map((x) => x.name).join(', ')}`);
      return c;
    };
    let g: LoadedRepository;
    // r fills a fresh render cache (a cold load that writes it); g reads none.
    const cache = mkdtempSync(path.join(tmpdir(), 'standup-corpus-cache-'));
    beforeAll(async () => {
      r = await loadRepository({ repo: repoDir(tc.dir), cache });
      g = await loadRepository({ repo: repoDir(tc.dir), scope: 'graph' });
    });
    afterAll(() => rmSync(cache, { recursive: true, force: true }));
    const exclude = () => new Set(r.config.exclude);
    // What plan and graph print: the plan (JSON contract), the levels, and the graph's nodes and edges; expansion
    // aside, which the graph load leaves at 'deferred' for leaves it did not build.
    const plans = (x: LoadedRepository) =>
      x.clusters.map((c) => {
        const p = planCluster(c, exclude());
        const kustomizations = c.kustomizations.map((k): FluxKustomization => ({ ...k, expansion: undefined }));
        return { plan: p.plan, levels: p.levels, nodes: [...p.graph.nodes.keys()], deps: [...p.graph.deps], children: [...p.graph.children], missing: p.graph.missing, kustomizations };
      });

    it('loads every cluster entry point with the expected Kustomizations and edges', () => {
      const got = Object.fromEntries(r.clusters.map((c) => [c.name, [c.entry, c.kustomizations.length, resolvedEdges(c)]]));
      expect(got).toEqual(tc.clusters);
    });

    it('every Kustomization is a Flux Kustomization document of the inventory, with the same dependsOn', () => {
      for (const c of r.clusters) {
        expect(notInInventory(tc.dir, c), c.name).toEqual([]);
        expect(dependsOnMismatches(tc.dir, c), c.name).toEqual([]);
        expect(new Set(c.kustomizations.map((k) => k.key)).size, `${c.name}: one node per key`).toBe(c.kustomizations.length);
      }
    });

    it('reports exactly the expected problems, each of them real', async () => {
      const network = r.problems.filter((p) => p.code === 'build-failed' && /https?:\/\//.test(p.message));
      const counted = summary(r.problems.filter((p) => !network.includes(p)));
      const expected = { ...tc.problems };
      // A remote resource builds when the network is there: then its build-failed is simply absent.
      for (const key of Object.keys(expected)) if (key.endsWith(':build-failed')) expected[key] = (expected[key] ?? 0) - network.filter((p) => `${p.cluster}:build-failed` === key).length;
      for (const [k, v] of Object.entries(expected)) if (v === 0) delete expected[k];
      expect(counted).toEqual(expected);
      for (const p of r.problems) {
        expect(unrealBuildFailure(tc.dir, p), p.message).toBeNull();
        if (p.code === 'path-missing') expect(existsSync(path.join(repoDir(tc.dir), p.message.split('"')[1] ?? ''))).toBe(false);
        expect(p.file === null || existsSync(path.join(repoDir(tc.dir), p.file)), `${p.file} exists`).toBe(true);
      }
      await tc.more?.(r, cluster);
    });

    it("derives the same plan with scope 'graph' (plan, graph), which leaves leaf tiers unbuilt", () => {
      expect(plans(g)).toEqual(plans(r));
      // A leaf the graph load deferred is built by the full one (where its build may fail); the rest is the same.
      for (const c of g.clusters) {
        const full = new Map(cluster(c.name).kustomizations.map((k) => [k.key, k.expansion]));
        for (const k of c.kustomizations) {
          if (k.expansion === 'deferred') expect(['built', 'build-failed'], k.key).toContain(full.get(k.key));
          else expect(k.expansion, k.key).toBe(full.get(k.key));
        }
      }
      for (const c of r.clusters) expect(c.objectsComplete).toBe(true);
      // The graph load never sees more objects than the full one: what it skipped is missing, nothing is invented.
      for (const c of g.clusters) {
        const full = cluster(c.name);
        expect(c.objects.length).toBeLessThanOrEqual(full.objects.length);
        if (c.objectsComplete) expect(c.objects.length, `${c.name}: nothing deferred, so every object`).toBe(full.objects.length);
      }
    });

    it('every Kustomization is expanded, or a problem on it says why (external-source, path-missing, build-failed)', () => {
      for (const c of r.clusters) {
        for (const k of c.kustomizations.filter((x) => !isExpanded(x))) {
          const why = r.problems.filter((p) => p.cluster === c.name && p.code === k.expansion && (p.object === `Kustomization/${k.key}` || p.message.includes(k.key)));
          expect(why.length, `${c.name}: ${k.key} (${k.expansion})`).toBeGreaterThan(0);
        }
      }
    });

    it('--path ENTRY reads every entry as discovery does: the same Kustomizations, edges and expansion', async () => {
      for (const c of g.clusters) {
        const one = await loadRepository({ repo: repoDir(tc.dir), path: c.entry, scope: 'graph' });
        expect(one.clusters.map((x) => x.name)).toEqual([c.name]);
        expect(one.notices).toEqual([]);
        expect(plans(one)).toEqual(plans({ ...g, clusters: [c] }));
        expect(one.clusters[0]!.kustomizations.map((k) => [k.key, k.expansion])).toEqual(c.kustomizations.map((k) => [k.key, k.expansion]));
      }
    });

    it('warm (from the render cache) equals cold, in full and for the graph alone', async () => {
      const snapshot = (x: LoadedRepository) => ({
        clusters: x.clusters.map((c) => ({ ...c, objects: c.objects.map((o) => ({ ...o, raw: o.raw })) })),
        problems: x.problems,
        notices: x.notices,
      });
      const warm = await loadRepository({ repo: repoDir(tc.dir), cache });
      // Only the builds the cache cannot key (a remote base or file, an ExternalArtifact's tree) run kustomize again.
      expect(warm.stats.spawned).toBeLessThanOrEqual(warm.stats.uncached);
      expect(warm.stats.cacheHits).toBeGreaterThan(0);
      expect(snapshot(warm)).toEqual(snapshot(r));
      const warmGraph = await loadRepository({ repo: repoDir(tc.dir), scope: 'graph', cache });
      expect(snapshot(warmGraph)).toEqual(snapshot(g));
    });

    it('gives every object an origin inside the repository', () => {
      for (const c of r.clusters) {
        const outside = c.objects.filter((o) => o.origin.file.startsWith('..') || !existsSync(path.join(repoDir(tc.dir), o.origin.file)));
        expect(outside.map((o) => `${o.kind}/${o.name} ${o.origin.file}`)).toEqual([]);
        const withLine = c.kustomizations.filter((k) => k.origin.line !== null).length;
        expect(withLine, `${c.name}: Kustomizations with a line`).toBe(c.kustomizations.length);
      }
    });
  });
}

describe('companion trees (d1-infra, d1-apps)', () => {
  it.each(['controlplaneio-fluxcd__d1-infra', 'controlplaneio-fluxcd__d1-apps'])('%s has no entry point of its own: NO_CLUSTERS', async (dir) => {
    await expect(loadRepository({ repo: repoDir(dir) })).rejects.toMatchObject({ code: 'NO_CLUSTERS' });
  });
});

describe('d1-fleet with its companion repositories as local sources', () => {
  let r: LoadedRepository;
  const infra = repoDir('controlplaneio-fluxcd__d1-infra');
  const apps = repoDir('controlplaneio-fluxcd__d1-apps');
  beforeAll(async () => {
    // One source by name (flux-infra), the other by URL: every GitRepository of d1-apps (one per tenant namespace).
    r = await loadRepository({
      repo: repoDir('controlplaneio-fluxcd__d1-fleet'),
      localSources: [`GitRepository/flux-system/flux-infra=${infra}`, `https://github.com/controlplaneio-fluxcd/d1-apps.git=${apps}`],
    });
  });

  it('evaluates every Kustomization: no external-source, each one expanded', () => {
    expect(r.problems.filter((p) => p.code === 'external-source')).toEqual([]);
    expect(r.clusters.map((c) => [c.name, c.kustomizations.length])).toEqual([['prod-eu', 8], ['prod-us', 8], ['staging', 10]]);
    for (const c of r.clusters) expect(c.kustomizations.filter((k) => !isExpanded(k)).map((k) => k.key), c.name).toEqual([]);
    expect(r.clusters.every((c) => c.externalSources.length === 0)).toBe(true);
  });

  it('reads each tier from the companion, at the path the parent substituted, and finds only real problems', () => {
    const staging = r.clusters.find((c) => c.name === 'staging')!;
    expect(staging.kustomizations.find((k) => k.name === 'monitoring-controllers')!.repoPath).toBe('../controlplaneio-fluxcd__d1-infra/components/monitoring/controllers/staging');
    expect(staging.kustomizations.find((k) => k.name === 'flux-frontend')!.repoPath).toBe('../controlplaneio-fluxcd__d1-apps/components/frontend/staging');
    const prod = r.clusters.find((c) => c.name === 'prod-eu')!;
    expect(prod.kustomizations.find((k) => k.name === 'monitoring-controllers')!.repoPath).toBe('../controlplaneio-fluxcd__d1-infra/components/monitoring/controllers/production');
    // The frontend reads CLUSTER_DOMAIN from a flux-runtime-info ConfigMap that Kyverno copies into its namespace
    // in the cluster (d1-infra's admission configs): not in git, so a warning, never an error.
    expect(summary(r.problems)).toEqual({ 'prod-eu:unresolved-substitution': 1, 'prod-us:unresolved-substitution': 1, 'staging:unresolved-substitution': 1 });
    for (const p of r.problems) expect(p.message).toContain('CLUSTER_DOMAIN');
    // What the companions apply is in the graph: the HelmReleases of d1-infra's controllers.
    expect(staging.objects.some((o) => o.kind === 'HelmRelease' && o.origin.file.startsWith('../controlplaneio-fluxcd__d1-infra/'))).toBe(true);
  });
});
