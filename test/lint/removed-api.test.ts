import { describe, expect, it } from 'vitest';
import { lint } from '../../src/lint/index.js';
import { removedApiRule } from '../../src/lint/rules/removed-api.js';
import { emptyBootstrap } from '../../src/model/bootstrap.js';
import type { InstalledFlux } from '../../src/model/flux-versions.js';
import { cluster, config, ks, obj, plan } from '../helpers/model.js';

const APPS = 'flux-system/apps';
const objects = [
  { ...obj('helm.toolkit.fluxcd.io/v2beta2', 'HelmRelease', 'web', APPS), namespace: 'apps' },
  { ...obj('source.toolkit.fluxcd.io/v1beta2', 'HelmRepository', 'charts', APPS), namespace: 'apps' },
  obj('kustomize.toolkit.fluxcd.io/v1beta1', 'Kustomization', 'old', APPS),
  obj('helm.toolkit.fluxcd.io/v2', 'HelmRelease', 'current', APPS),
  obj('example.com/v1beta2', 'HelmRelease', 'not-flux', APPS),
];
const installs = (version: string, how: InstalledFlux['how'] = 'flux-instance'): InstalledFlux[] => [{ cluster: null, version, kustomizeController: null, how, file: 'clusters/dev/flux-instance.yaml', line: 12 }];
const run = (flux: InstalledFlux[]) => removedApiRule.check({
  clusters: [plan(cluster('dev', [ks('apps')], objects))], config: config(), bootstrap: { ...emptyBootstrap(), flux },
});

describe('removed-api', () => {
  it('Flux 2.8 no longer serves v1beta2 of kustomize, source and helm, nor the v1beta1s: each with its replacement', () => {
    const ps = run(installs('2.8.x'));
    expect(ps.map((p) => [p.object, p.replacement])).toEqual([
      ['HelmRelease/apps/web', 'helm.toolkit.fluxcd.io/v2'],
      ['HelmRepository/apps/charts', 'source.toolkit.fluxcd.io/v1'],
      ['Kustomization/old', 'kustomize.toolkit.fluxcd.io/v1'],
    ]);
    expect(ps.every((p) => p.severity === 'error' && p.tier === APPS)).toBe(true);
    expect(ps[0]!.message).toContain('which Flux 2.8 no longer serves (removed in 2.8)');
    expect(ps[0]!.message).toContain("The repository installs Flux 2.8 (2.8.x, a FluxInstance's spec.distribution.version in clusters/dev/flux-instance.yaml:12)");
    expect(ps[0]!.message).toContain('Write apiVersion: helm.toolkit.fluxcd.io/v2');
    expect(ps[0]!.fluxVersion).toEqual({ minor: '2.8', assumed: false });
  });

  it('Flux 2.7 still serves the v1beta2s and v2beta2, not the v1beta1s', () => {
    expect(run(installs('v2.7.3', 'install-manifests')).map((p) => p.object)).toEqual(['Kustomization/old']);
  });

  it('Flux 2.6 serves all of them', () => {
    expect(run(installs('2.6.x'))).toEqual([]);
  });

  it('a Flux before 2.0 (a flux2 source at v0.31.4): nothing flagged, one info saying the apiVersions were not checked', () => {
    const ps = run(installs('v0.31.4', 'flux-source'));
    expect(ps.map((p) => [p.severity, p.file, p.line])).toEqual([['info', 'clusters/dev/flux-instance.yaml', 12]]);
    expect(ps[0]!.message).toContain("The repository installs Flux 0.31 (v0.31.4, the tag of the Flux source a Kustomization applies Flux's manifests from");
    expect(ps[0]!.message).toContain('were not checked');
  });

  it('without a Flux version in the repository, the newest standup knows, said so', () => {
    const ps = run([]);
    expect(ps).toHaveLength(3);
    expect(ps[0]!.message).toContain('The repository does not say which Flux it installs, so standup assumed the newest it knows, 2.9');
    expect(ps[0]!.fluxVersion).toEqual({ minor: '2.9', assumed: true });
  });

  it('runs with check\'s other rules', () => {
    expect(lint({ clusters: [plan(cluster('dev', [ks('apps')], objects))], config: config(), bootstrap: { ...emptyBootstrap(), flux: installs('2.8.x') } }).filter((p) => p.code === 'removed-api')).toHaveLength(3);
  });
});
