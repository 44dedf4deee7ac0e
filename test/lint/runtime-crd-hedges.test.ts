// runtime-crd where standup's knowledge runs out: a chart or package it has no table entry for, in a tier the
// resource already waits for (a note naming it, not a warning to add a dependsOn that is there), and tiers it could
// not expand that run first (a note, whatever installer is known, that names the known one).
import { describe, expect, it } from 'vitest';
import { lint } from '../../src/lint/index.js';
import { emptyBootstrap } from '../../src/model/bootstrap.js';
import { cluster, config, crd, ks, obj } from '../helpers/model.js';
import { plan } from '../helpers/model.js';

const hr = (name: string, owner: string, chart = name) => obj('helm.toolkit.fluxcd.io/v2', 'HelmRelease', name, owner, { spec: { chart: { spec: { chart } } } });
const run = (tiers: ReturnType<typeof ks>[], objects: ReturnType<typeof obj>[]) =>
  lint({ clusters: [plan(cluster('dev', tiers, objects))], config: config() }).filter((p) => p.code === 'runtime-crd');

describe('a chart or package standup does not know, in a tier the resource already waits for', () => {
  it('a Crossplane provider package whose names share a word with the group: an info naming it', () => {
    const tiers = [ks('crossplane-aws-provider'), ks('aws-provider-config', { dependsOn: ['crossplane-aws-provider'] })];
    const provider = obj('pkg.crossplane.io/v1', 'Provider', 'provider-aws', 'flux-system/crossplane-aws-provider', { spec: { package: 'xpkg.upbound.io/crossplane-contrib/provider-aws:v0.47' } });
    // (The Provider's own group, pkg.crossplane.io, is a finding of its own: no crossplane chart here.)
    const [p, ...rest] = run(tiers, [provider, obj('aws.crossplane.io/v1beta1', 'ProviderConfig', 'default', 'flux-system/aws-provider-config')]).filter((x) => x.crdGroup === 'aws.crossplane.io');
    expect(rest).toEqual([]);
    expect(p?.severity).toBe('info');
    expect(p?.installer).toContain('probably Provider/provider-aws');
    expect(p?.message).toContain('already waits for flux-system/crossplane-aws-provider');
    expect(p?.message).not.toContain('make flux-system/aws-provider-config depend on');
  });

  it('a HelmRelease of an unknown chart named like the group, two dependsOn away: an info naming it', () => {
    const tiers = [ks('storage'), ks('db', { dependsOn: ['storage'] }), ks('app', { dependsOn: ['db'] })];
    const [p] = run(tiers, [hr('acme-backup', 'flux-system/storage', 'acme-backup-operator'), obj('backup.acme.example/v1', 'Schedule', 's', 'flux-system/app')]);
    expect(p?.severity).toBe('info');
    expect(p?.installer).toBe('probably HelmRelease/acme-backup (chart acme-backup-operator) in tier flux-system/storage');
  });

  it('the same release in a tier the resource does not wait for: still the warning (the order may be missing)', () => {
    const tiers = [ks('storage'), ks('app')];
    const [p] = run(tiers, [hr('acme-backup', 'flux-system/storage', 'acme-backup-operator'), obj('backup.acme.example/v1', 'Schedule', 's', 'flux-system/app')]);
    expect(p?.severity).toBe('warning');
    expect(p?.message).toContain('make flux-system/app depend on its tier');
  });

  it('an unknown chart with no word in common: the warning stays, and says the dependsOn is already there', () => {
    const tiers = [ks('infra'), ks('app', { dependsOn: ['infra'] })];
    const [p] = run(tiers, [hr('thing', 'flux-system/infra'), obj('widgets.example.com/v1', 'Widget', 'w', 'flux-system/app')]);
    expect(p?.severity).toBe('warning');
    expect(p?.message).toContain('flux-system/app already depends on HelmRelease/thing (chart thing)');
  });
});

describe('a tier standup could not expand runs first: a note, also when an installer is known', () => {
  const tiers = () => [ks('remote', { repoPath: null }), ks('operators'), ks('app', { dependsOn: ['remote'] })];

  it('a known chart in a tier the resource does not wait for: an info that names it and the unexpanded tier', () => {
    const [p, ...rest] = run(tiers(), [hr('volsync', 'flux-system/operators'), obj('volsync.backube/v1alpha1', 'ReplicationSource', 'r', 'flux-system/app')]);
    expect(rest).toEqual([]);
    expect(p?.severity).toBe('info');
    expect(p?.message).toContain('HelmRelease/volsync (chart volsync) in tier flux-system/operators installs the CRDs');
    expect(p?.message).toContain('flux-system/remote runs before flux-system/app');
    expect(p?.message).not.toContain('nothing standup could read');
  });

  it('a CRD in git in a tier the resource does not wait for: an info, not a race', () => {
    const [p] = run(tiers(), [crd('a.io', 'Widget', 'widgets', 'flux-system/operators'), obj('a.io/v1', 'Widget', 'w', 'flux-system/app')]);
    expect(p?.severity).toBe('info');
    expect(p?.installer).toContain('CRD widgets.a.io in tier flux-system/operators');
  });

  it('nothing known at all: the note says nothing standup could read installs it', () => {
    const [p] = run(tiers(), [obj('a.io/v1', 'Widget', 'w', 'flux-system/app')]);
    expect(p?.severity).toBe('info');
    expect(p?.message).toContain('nothing standup could read installs the CRDs of a.io');
  });
});

describe('hedged consistently across the repository', () => {
  const runAll = (clusters: ReturnType<typeof cluster>[]) => lint({ clusters: clusters.map(plan), config: config() }).filter((p) => p.code === 'runtime-crd');

  it('"nothing standup could read installs it" is not said when another cluster of the repository installs the group', () => {
    const main = cluster('main', [ks('volsync'), ks('app', { dependsOn: ['volsync'] })], [hr('volsync', 'flux-system/volsync'), obj('volsync.backube/v1alpha1', 'ReplicationSource', 'r', 'flux-system/app')]);
    const test = cluster('test', [ks('remote', { repoPath: null }), ks('app', { dependsOn: ['remote'] })], [obj('volsync.backube/v1alpha1', 'ReplicationSource', 'r', 'flux-system/app')]);
    const found = runAll([main, test]);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ cluster: 'test', severity: 'info' });
    expect(found[0]!.message).not.toContain('nothing standup could read');
    expect(found[0]!.message).toContain('HelmRelease/volsync (chart volsync) in tier flux-system/volsync of cluster main does');
  });

  it('a cluster without the release the other has: the warning names where the repository installs the group', () => {
    const main = cluster('main', [ks('volsync')], [hr('volsync', 'flux-system/volsync')]);
    const test = cluster('test', [ks('app')], [obj('volsync.backube/v1alpha1', 'ReplicationSource', 'r', 'flux-system/app')]);
    const [p] = runAll([main, test]);
    expect(p).toMatchObject({ cluster: 'test', severity: 'warning', installer: 'nothing in this cluster (HelmRelease/volsync (chart volsync) in tier flux-system/volsync of cluster main)' });
    expect(p!.message).not.toContain('nothing in git or in the bootstrap');
  });

  it('a CRD the operator creates at runtime (inferred), with an unexpanded tier first: a note, not a race', () => {
    const tiers = [ks('remote', { repoPath: null }), ks('operator'), ks('app', { dependsOn: ['remote'] })];
    const objects = [crd('cdi.kubevirt.io', 'CDI', 'cdis', 'flux-system/operator'), obj('cdi.kubevirt.io/v1beta1', 'CDI', 'cdi', 'flux-system/operator'), obj('cdi.kubevirt.io/v1beta1', 'StorageProfile', 'sp', 'flux-system/app')];
    const [p] = run(tiers, objects);
    expect(p?.severity).toBe('info');
    expect(p?.message).toContain('flux-system/remote runs before flux-system/app');
  });
});

describe('chart table', () => {
  it("silence-operator's chart serves both Silence groups (monitoring.giantswarm.io v1alpha1 and observability.giantswarm.io)", () => {
    const tiers = [ks('silence-operator', { wait: true }), ks('silences', { dependsOn: ['silence-operator'] })];
    for (const group of ['monitoring.giantswarm.io', 'observability.giantswarm.io']) {
      expect(run(tiers, [hr('silence-operator', 'flux-system/silence-operator'), obj(`${group}/v1alpha1`, 'Silence', 's', 'flux-system/silences')])).toEqual([]);
    }
  });
});

describe("Flux's optional controllers, installed when the FluxInstance lists them", () => {
  const gen = obj('source.extensions.fluxcd.io/v1beta1', 'ArtifactGenerator', 'parts', 'flux-system/apps');
  const withFlux = (components: string[] | undefined) =>
    lint({
      clusters: [plan(cluster('dev', [ks('apps')], [gen]))],
      config: config(),
      bootstrap: { ...emptyBootstrap(), flux: [{ cluster: 'dev', version: '2.7.x', kustomizeController: null, how: 'flux-instance', file: 'clusters/dev/flux-instance.yaml', line: 4, ...(components ? { components } : {}) }] },
    }).filter((p) => p.code === 'runtime-crd');
  it('an ArtifactGenerator with source-watcher among the FluxInstance components: nothing to report', () => {
    expect(withFlux(['source-controller', 'kustomize-controller', 'source-watcher'])).toEqual([]);
  });
  it('without source-watcher listed, nothing installs source.extensions.fluxcd.io: the finding stays', () => {
    expect(withFlux(['source-controller', 'kustomize-controller']).map((p) => p.crdGroup)).toEqual(['source.extensions.fluxcd.io']);
    expect(withFlux(undefined).map((p) => p.crdGroup)).toEqual(['source.extensions.fluxcd.io']);
  });
});

describe('inferredRuntimeCrds (what the runner waits for without a runtimeCrds entry)', () => {
  it("a kind whose group's other CRDs are in git while its own is not, once per trigger kind; nothing for a kind with its CRD in git", async () => {
    const { inferredRuntimeCrds } = await import('../../src/lint/rules/runtime-crd.js');
    const objects = [
      crd('cdi.kubevirt.io', 'CDI', 'cdis', 'flux-system/operator'),
      crd('cdi.kubevirt.io', 'CDIConfig', 'cdiconfigs', 'flux-system/operator'),
      obj('cdi.kubevirt.io/v1beta1', 'CDI', 'cdi', 'flux-system/operator'),
      obj('cdi.kubevirt.io/v1beta1', 'StorageProfile', 'a', 'flux-system/app'),
      obj('cdi.kubevirt.io/v1beta1', 'StorageProfile', 'b', 'flux-system/app'),
      obj('example.com/v1', 'Widget', 'w', 'flux-system/app'),
      obj('apps/v1', 'Deployment', 'd', 'flux-system/app'),
    ];
    expect(inferredRuntimeCrds(objects)).toEqual([
      { kind: 'StorageProfile', group: 'cdi.kubevirt.io', createdBy: { kind: 'CDI', group: 'cdi.kubevirt.io' }, inferred: true },
      { kind: 'StorageProfile', group: 'cdi.kubevirt.io', createdBy: { kind: 'CDIConfig', group: 'cdi.kubevirt.io' }, inferred: true },
    ]);
  });
});
