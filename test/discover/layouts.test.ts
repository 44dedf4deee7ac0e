// Cluster entries and their root sources in layouts that real repositories use (fixtures under test/fixtures/repo,
// each modelled on a layout, see its README): discovery and --path must read them the same way, and every
// Kustomization is expanded or says why not.
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/model/errors.js';
import type { ClusterModel } from '../../src/model/flux.js';
import { discoverRepository, loadRepository, type LoadedRepository } from '../../src/load/load-repository.js';
import { cleanupRepos, cm, fixture, ks, makeRepo } from '../helpers/repo-fixtures.js';

afterAll(cleanupRepos);

const summary = (c: ClusterModel) => c.kustomizations.map((k) => [k.key, k.parent, k.repoPath, k.expansion]);
const keys = (c: ClusterModel) => c.kustomizations.map((k) => k.key);

/** Loading each discovered entry with --path gives the same cluster, and nothing to say on stderr. */
async function samePathLoad(repo: string, r: LoadedRepository): Promise<void> {
  for (const c of r.clusters) {
    const one = await loadRepository({ repo, path: c.entry });
    expect(one.notices).toEqual([]);
    expect(one.clusters.map((x) => [x.name, x.rootSource])).toEqual([[c.name, c.rootSource]]);
    expect(summary(one.clusters[0]!)).toEqual(summary(c));
    expect(one.clusters[0]!.kustomizations.map((k) => k.dependsOn)).toEqual(c.kustomizations.map((k) => k.dependsOn));
  }
}

describe('a flux-instance HelmRelease whose values come through valuesFrom (fixture values-from)', () => {
  const repo = fixture('values-from');

  it('reads the sync from the ConfigMap that kustomize generates from values.yaml, source name and all', async () => {
    const d = await discoverRepository(repo);
    expect(d.problems).toEqual([]);
    expect(d.entries.map((e) => [e.name, e.entry, e.source, e.sourceUrl, e.foundIn])).toEqual([
      [
        'cluster',
        'kubernetes/flux/cluster',
        { kind: 'GitRepository', name: 'cluster-repository', namespace: 'flux-system' },
        'https://example.com/home-ops.git',
        'kubernetes/apps/flux-system/flux-instance/app/helmrelease.yaml',
      ],
    ]);
  });

  it('expands every tier: they read cluster-repository, which no file declares', async () => {
    const r = await loadRepository({ repo });
    expect(r.problems).toEqual([]);
    const c = r.clusters[0]!;
    expect(summary(c)).toEqual([
      ['flux-system/cluster-apps', null, 'kubernetes/apps', 'built'],
      ['cert-manager/cert-manager', 'flux-system/cluster-apps', 'kubernetes/apps/cert-manager/cert-manager/app', 'built'],
      ['default/echo', 'flux-system/cluster-apps', 'kubernetes/apps/default/echo/app', 'built'],
      ['flux-system/flux-instance', 'flux-system/cluster-apps', 'kubernetes/apps/flux-system/flux-instance/app', 'built'],
    ]);
    expect(c.rootSource).toMatchObject({ how: 'discovered', url: 'https://example.com/home-ops.git' });
    await samePathLoad(repo, r);
  });

  it('a values file that is missing is a build-failed problem naming it; the other clusters still load', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'standup-values-'));
    try {
      cpSync(repo, root, { recursive: true });
      rmSync(path.join(root, 'kubernetes/apps/flux-system/flux-instance/app/values.yaml'));
      // A second cluster, bootstrapped the classic way, in the same repository.
      mkdirSync(path.join(root, 'clusters/lab/flux-system'), { recursive: true });
      writeFileSync(
        path.join(root, 'clusters/lab/flux-system/gotk-sync.yaml'),
        'apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata:\n  name: flux-system\n  namespace: flux-system\nspec:\n  url: https://example.com/home-ops.git\n---\n' +
          ks('flux-system', { path: './clusters/lab' }),
      );
      writeFileSync(path.join(root, 'clusters/lab/apps.yaml'), ks('lab-apps', { path: './kubernetes/apps/default/echo/app' }));
      const r = await loadRepository({ repo: root });
      const bf = r.problems.filter((p) => p.code === 'build-failed');
      expect(bf.map((p) => [p.severity, p.file, p.object, p.cluster])).toEqual([
        ['error', 'kubernetes/apps/flux-system/flux-instance/app/helmrelease.yaml', 'HelmRelease/flux-instance', null],
      ]);
      expect(bf[0]!.message).toContain('values.yaml');
      expect(bf[0]!.message).toContain('kubernetes/apps/flux-system/flux-instance/app');
      expect(bf[0]!.line).toBe(10);
      expect(r.clusters.map((c) => [c.name, keys(c)])).toEqual([['lab', ['flux-system/flux-system', 'flux-system/lab-apps']]]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('with no other cluster, the missing values file is named in the NO_CLUSTERS error', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'standup-values-'));
    try {
      cpSync(repo, root, { recursive: true });
      rmSync(path.join(root, 'kubernetes/apps/flux-system/flux-instance/app/values.yaml'));
      const e = await loadRepository({ repo: root }).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(ConfigError);
      expect((e as ConfigError).code).toBe('NO_CLUSTERS');
      expect((e as ConfigError).message).toContain('kubernetes/apps/flux-system/flux-instance/app/helmrelease.yaml:10');
      expect((e as ConfigError).message).toContain('values.yaml');
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('a root split over two files outside flux-system, one cluster per overlay that patches its path (fixture fleet)', () => {
  const repo = fixture('fleet');

  it('lists every overlay as a cluster, its root the patched one', async () => {
    const d = await discoverRepository(repo);
    expect(d.entries.map((e) => [e.name, e.entry, e.source.name, e.sourceUrl, e.foundIn])).toEqual([
      ['dev-01', 'clusters/dev/01', 'flux-config', 'https://example.com/fleet.git', 'clusters/dev/01/kustomization.yaml'],
      ['prod-01', 'clusters/prod/01', 'flux-config', 'https://example.com/fleet.git', 'clusters/prod/01/kustomization.yaml'],
      ['prod-02', 'clusters/prod/02', 'flux-config', 'https://example.com/fleet.git', 'clusters/prod/02/kustomization.yaml'],
    ]);
  });

  it('renders each cluster from its overlay: the root applies itself, which is no cycle, and its tiers are built', async () => {
    const r = await loadRepository({ repo });
    expect(r.problems).toEqual([]);
    const prod2 = r.clusters.find((c) => c.name === 'prod-02')!;
    expect(summary(prod2)).toEqual([
      ['flux-system/flux-config', null, 'clusters/prod/02', 'built'],
      ['flux-system/infra', 'flux-system/flux-config', 'infra', 'built'],
      ['flux-system/monitoring', 'flux-system/flux-config', 'monitoring', 'built'],
      ['flux-system/workloads', 'flux-system/flux-config', 'workloads', 'built'],
    ]);
    expect(keys(r.clusters.find((c) => c.name === 'dev-01')!)).toEqual(['flux-system/flux-config', 'flux-system/infra', 'flux-system/workloads']);
    // Each cluster's root is the patched one: it reconciles its own overlay, the rest of the graph hangs off it.
    for (const c of r.clusters) expect(c.kustomizations.find((k) => k.name === 'flux-config')!.repoPath).toBe(c.entry);
    await samePathLoad(repo, r);
  });

  it('a base whose placeholder path is never patched is no cluster', async () => {
    const root = makeRepo({
      'base/kustomization.yaml': 'resources: [root.yaml, repo.yaml]\n',
      'base/root.yaml': ks('flux-config', { path: './clusters/CHANGEME' }, 'flux-system').replace(/name: flux-system\n    namespace/, 'name: cfg\n    namespace'),
      'base/repo.yaml': 'apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata:\n  name: cfg\n  namespace: flux-system\nspec:\n  url: https://example.com/x.git\n',
      'clusters/a/kustomization.yaml': 'resources: [../../base]\n',
    });
    expect((await discoverRepository(root)).entries).toEqual([]);
  });
});

describe('a FluxInstance and a plain root Kustomization that sync one path (fixture two-roots)', () => {
  const repo = fixture('two-roots');

  it('is one cluster whose tiers reading either source are expanded', async () => {
    const d = await discoverRepository(repo);
    expect(d.entries.map((e) => [e.name, e.entry])).toEqual([['home', 'clusters/home']]);
    expect([d.entries[0]!.source, ...d.entries[0]!.alsoSources.map((a) => a.ref)].map((s) => s.name).sort()).toEqual(['flux-system', 'home-ops']);
    const r = await loadRepository({ repo });
    expect(r.problems).toEqual([]);
    expect(summary(r.clusters[0]!)).toEqual([
      ['flux-system/apps', 'flux-system/cluster', 'apps', 'built'],
      ['flux-system/cluster', null, 'clusters/home', 'built'],
      ['flux-system/infra', 'flux-system/cluster', 'infra', 'built'],
    ]);
    await samePathLoad(repo, r);
  });
});

describe('--path to a folder that no root syncs', () => {
  const repo = () =>
    makeRepo({
      'envs/lab/infra.yaml': ks('infra', { path: './infra' }),
      'envs/lab/apps.yaml': ks('apps', { path: './apps', dependsOn: [{ name: 'infra' }] }).replace('name: flux-system\n    namespace', 'name: lab\n    namespace'),
      'infra/cm.yaml': cm('infra'),
      'apps/cm.yaml': cm('apps'),
    });

  it('says on stderr which source it assumes, and an external-source problem names what that leaves out', async () => {
    const r = await loadRepository({ repo: repo(), path: 'envs/lab' });
    expect(r.clusters[0]!.rootSource).toMatchObject({ how: 'assumed', ref: { kind: 'GitRepository', name: 'flux-system', namespace: 'flux-system' } });
    expect(r.notices).toHaveLength(1);
    expect(r.notices[0]).toContain('no root sync in the repository reconciles envs/lab');
    expect(r.notices[0]).toContain('GitRepository/flux-system/flux-system');
    expect(r.notices[0]).toContain('--source');
    expect(summary(r.clusters[0]!)).toEqual([
      ['flux-system/apps', null, null, 'external-source'],
      ['flux-system/infra', null, 'infra', 'built'],
    ]);
    expect(r.problems.map((p) => [p.code, p.severity, p.object])).toEqual([['external-source', 'info', 'Kustomization/flux-system/apps']]);
    expect(r.problems[0]!.message).toContain('GitRepository flux-system/lab is not declared in git');
    expect(r.problems[0]!.message).toContain('pass --source GitRepository/flux-system/lab');
  });

  it('--source names the source instead', async () => {
    const r = await loadRepository({ repo: repo(), path: 'envs/lab', source: 'GitRepository/flux-system/lab' });
    expect(r.notices).toEqual([]);
    expect(r.clusters[0]!.rootSource).toMatchObject({ how: 'flag', ref: { name: 'lab' } });
    expect(summary(r.clusters[0]!)).toEqual([
      ['flux-system/apps', null, 'apps', 'built'],
      ['flux-system/infra', null, null, 'external-source'],
    ]);
  });

  it("the folder's own root (a Kustomization reconciling it, its source declared nowhere) names the source", async () => {
    const root = makeRepo({
      'sync/root.yaml': ks('sync', { path: './sync' }).replace('name: flux-system\n    namespace', 'name: origin\n    namespace'),
      'sync/apps.yaml': ks('apps', { path: './apps' }).replace('name: flux-system\n    namespace', 'name: origin\n    namespace'),
      'apps/cm.yaml': cm('apps'),
    });
    const r = await loadRepository({ repo: root, path: 'sync' });
    expect(r.notices).toEqual([]);
    expect(r.clusters[0]!.rootSource).toMatchObject({ how: 'self', ref: { name: 'origin' }, foundIn: 'sync/root.yaml' });
    expect(summary(r.clusters[0]!)).toEqual([
      ['flux-system/apps', 'flux-system/sync', 'apps', 'built'],
      ['flux-system/sync', null, 'sync', 'built'],
    ]);
  });

  it('a folder with no Flux Kustomization is bad input: NO_KUSTOMIZATION, exit 2', async () => {
    const root = makeRepo({ 'plain/cm.yaml': cm('x') });
    const e = await loadRepository({ repo: root, path: 'plain' }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ConfigError);
    expect(e).toMatchObject({ code: 'NO_KUSTOMIZATION', exitCode: 2, message: 'no Flux Kustomization under plain' });
  });

  it('--source with a kind that is not a Flux source is bad input, listing the accepted kinds', async () => {
    const e = await loadRepository({ repo: repo(), path: 'envs/lab', source: 'HelmRepository/flux-system/charts' }).catch((x: unknown) => x);
    expect(e).toMatchObject({ code: 'BAD_FLAG', exitCode: 2 });
    expect((e as Error).message).toContain('GitRepository, OCIRepository, Bucket, ExternalArtifact');
    await expect(loadRepository({ repo: repo(), path: 'envs/lab', source: 'GitRepository' })).rejects.toMatchObject({ code: 'BAD_FLAG' });
    const short = await loadRepository({ repo: repo(), path: 'envs/lab', source: 'gitrepository/lab' });
    expect(short.clusters[0]!.rootSource?.ref).toEqual({ kind: 'GitRepository', namespace: 'flux-system', name: 'lab' });
  });
});
