import { afterAll, describe, expect, it } from 'vitest';
import { normalizeRepoPath } from '../../src/repo/repo-path.js';
import { discoverRepository, loadRepository } from '../../src/load/load-repository.js';
import { cleanupRepos, cm, gotkSync, ks, makeRepo } from '../helpers/repo-fixtures.js';

afterAll(cleanupRepos);


describe('cluster discovery without tiers.yaml', () => {
  it('finds gotk-sync roots, a FluxInstance, a flux-instance HelmRelease and bootstrap placeholders', async () => {
    const root = makeRepo({
      'clusters/dev/flux-system/gotk-sync.yaml': gotkSync('./clusters/dev'),
      'clusters/dev/a.yaml': cm('a'),
      'fleet/prod/flux-system/instance.yaml':
        'apiVersion: fluxcd.controlplane.io/v1\nkind: FluxInstance\nmetadata:\n  name: flux\n  namespace: flux-system\nspec:\n  sync:\n    kind: GitRepository\n    url: https://example.com/r.git\n    path: fleet/prod\n',
      'fleet/prod/a.yaml': cm('a'),
      'k8s/apps/flux/instance/hr.yaml':
        'apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: flux-instance\nspec:\n  values:\n    instance:\n      sync:\n        kind: GitRepository\n        path: k8s/flux/cluster\n',
      'k8s/flux/cluster/ks.yaml': cm('a'),
      'hub/flux-system/gotk-sync.yaml': '# placeholder: flux bootstrap writes this\n',
      'hub/x.yaml': cm('x'),
    });
    expect((await discoverRepository(root)).entries.map((e) => [e.name, e.entry, e.foundIn])).toEqual([
      ['dev', 'clusters/dev', 'clusters/dev/flux-system/gotk-sync.yaml'],
      ['prod', 'fleet/prod', 'fleet/prod/flux-system/instance.yaml'],
      ['hub', 'hub', 'hub/flux-system/gotk-sync.yaml'],
      ['cluster', 'k8s/flux/cluster', 'k8s/apps/flux/instance/hr.yaml'],
    ]);
  });

  it('deduplicates names with the parent directory', async () => {
    const root = makeRepo({
      'a/cluster/flux-system/gotk-sync.yaml': gotkSync('./a/cluster'),
      'b/cluster/flux-system/gotk-sync.yaml': gotkSync('./b/cluster'),
    });
    expect((await discoverRepository(root)).entries.map((e) => e.name)).toEqual(['a-cluster', 'b-cluster']);
  });

  it('--path loads one entry directory, named after it', async () => {
    const root = makeRepo({ 'envs/staging/a.yaml': ks('a', { path: './apps' }), 'apps/cm.yaml': cm('x') });
    const r = await loadRepository({ repo: root, path: 'envs/staging' });
    expect(r.clusters.map((c) => [c.name, c.entry, c.kustomizations.length])).toEqual([['staging', 'envs/staging', 1]]);
  });

  it('normalises Flux paths', () => {
    expect(normalizeRepoPath('./a/b/')).toBe('a/b');
    expect(normalizeRepoPath('a//b/../c')).toBe('a/c');
    expect(normalizeRepoPath('./')).toBe('');
    expect(normalizeRepoPath('../../escape')).toBe('escape');
  });
});
