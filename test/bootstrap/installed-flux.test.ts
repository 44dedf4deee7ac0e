import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { installsIn, readInstalledFlux } from '../../src/bootstrap/installed-flux.js';
import { configSchema } from '../../src/model/config.js';
import { fluxFor, fluxMinorOf, NEWEST_FLUX, type InstalledFlux } from '../../src/model/flux-versions.js';
import type { RenderedObject } from '../../src/model/flux.js';

const at = (kind: string, name: string, raw: Record<string, unknown>, file = `f/${name}.yaml`, namespace: string | null = 'flux-system'): RenderedObject => ({
  apiVersion: String(raw.apiVersion), kind, name, namespace, origin: { file, line: 2 }, owner: null, raw: { kind, metadata: { name, namespace }, ...raw },
});

describe('fluxMinorOf: a version or constraint as flux-operator resolves it', () => {
  it.each([
    ['v2.7.3', '2.7'],
    ['2.7.x', '2.7'],
    ['2.9.4', '2.9'],
    ['2.x', `${NEWEST_FLUX.major}.${NEWEST_FLUX.minor}`],
    ['*', `${NEWEST_FLUX.major}.${NEWEST_FLUX.minor}`],
    ['>=2.5.0', `${NEWEST_FLUX.major}.${NEWEST_FLUX.minor}`],
    ['~2.6.0', '2.6'],
    ['v2.3.0-rc.1', '2.3'],
  ])('%s -> %s', (v, want) => {
    const m = fluxMinorOf(v);
    expect(m && `${m.major}.${m.minor}`).toBe(want);
  });
  it('says nothing of what it cannot read', () => expect(fluxMinorOf('latest-stable')).toBeNull());
});

describe('installsIn: where a cluster says which Flux it runs', () => {
  it('a FluxInstance, a flux-instance release (values and valuesFrom, else the chart default) and install manifests', () => {
    const objects = [
      at('FluxInstance', 'flux', { apiVersion: 'fluxcd.controlplane.io/v1', spec: { distribution: { version: '2.7.x' } } }),
      at('HelmRelease', 'flux-instance', { apiVersion: 'helm.toolkit.fluxcd.io/v2', spec: { chartRef: { kind: 'OCIRepository', name: 'flux-instance' }, valuesFrom: [{ kind: 'ConfigMap', name: 'fi-values' }] } }),
      at('ConfigMap', 'fi-values', { apiVersion: 'v1', data: { 'values.yaml': 'instance:\n  distribution:\n    version: 2.6.x\n' } }),
      at('HelmRelease', 'other-instance', { apiVersion: 'helm.toolkit.fluxcd.io/v2', spec: { chart: { spec: { chart: 'flux-instance' } } } }, 'g/hr.yaml', 'ops'),
      at('CustomResourceDefinition', 'kustomizations.kustomize.toolkit.fluxcd.io', { apiVersion: 'apiextensions.k8s.io/v1', metadata: { name: 'x', labels: { 'app.kubernetes.io/part-of': 'flux', 'app.kubernetes.io/version': 'v2.3.0' } } }, 'gotk/gotk-components.yaml', null),
      at('Deployment', 'kustomize-controller', { apiVersion: 'apps/v1', spec: { template: { spec: { containers: [{ image: 'ghcr.io/fluxcd/kustomize-controller:v1.3.0' }] } } } }, 'gotk/gotk-components.yaml'),
      at('CustomResourceDefinition', 'widgets.example.com', { apiVersion: 'apiextensions.k8s.io/v1', metadata: { name: 'y', labels: { 'app.kubernetes.io/version': 'v9.9.9' } } }, 'other.yaml', null),
    ];
    const got = installsIn('dev', objects).map((f) => [f.how, f.version, f.kustomizeController, f.file]);
    expect(got).toEqual([
      ['flux-instance', '2.7.x', null, 'f/flux.yaml'],
      ['flux-instance-chart', '2.6.x', null, 'f/flux-instance.yaml'],
      ['flux-instance-chart', '2.x', null, 'g/hr.yaml'],
      ['install-manifests', 'v2.3.0', 'v1.3.0', 'gotk/gotk-components.yaml'],
    ]);
  });
});

describe('fluxFor: the Flux a cluster runs', () => {
  const f = (o: Partial<InstalledFlux>): InstalledFlux => ({ cluster: 'dev', version: null, kustomizeController: null, how: 'install-manifests', file: 'x', line: null, ...o });
  it('tiers.yaml over a FluxInstance over the chart over manifests; of equals the oldest; else what is made for every cluster', () => {
    expect(fluxFor([f({ version: 'v2.3.0' }), f({ how: 'flux-instance', version: '2.8.x' })], 'dev')?.from.how).toBe('flux-instance');
    expect(fluxFor([f({ how: 'flux-instance', version: '2.8.x' }), f({ how: 'tiers.yaml', version: 'v2.5.0' })], 'dev')?.minor).toEqual({ major: 2, minor: 5 });
    expect(fluxFor([f({ version: 'v2.6.0' }), f({ version: 'v2.4.1' })], 'dev')?.minor).toEqual({ major: 2, minor: 4 });
    expect(fluxFor([f({ kustomizeController: 'v1.8.5' })], 'dev')?.minor).toEqual({ major: 2, minor: 8 });
    expect(fluxFor([f({ cluster: null, version: '2.7.x' }), f({ cluster: 'prod', version: '2.5.x' })], 'dev')?.minor).toEqual({ major: 2, minor: 7 });
    expect(fluxFor([f({ cluster: 'prod', version: '2.5.x' })], 'dev')).toBeNull();
  });
});

describe('readInstalledFlux: tiers.yaml bootstrap.install manifests', () => {
  it('reads the CRDs version label and the controller tag of the file up installs', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'standup-iflux-'));
    writeFileSync(path.join(dir, 'gotk-components.yaml'), [
      'apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: gitrepositories.source.toolkit.fluxcd.io\n  labels:\n    app.kubernetes.io/part-of: flux\n    app.kubernetes.io/version: v2.6.4\n',
      'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: kustomize-controller\nspec:\n  template:\n    spec:\n      containers:\n      - name: manager\n        image: ghcr.io/fluxcd/kustomize-controller:v1.6.1\n',
    ].join('---\n'));
    const config = configSchema.parse({ clusters: { dev: { context: 'kind-dev', path: 'clusters/dev', bootstrap: { install: { path: 'gotk-components.yaml' } } } } });
    const got = readInstalledFlux(dir, config, []);
    expect(got).toEqual([{ cluster: 'dev', version: 'v2.6.4', kustomizeController: 'v1.6.1', how: 'tiers.yaml', file: 'tiers.yaml', line: null }]);
  });
});

describe("installsIn: Flux's manifests applied from a Flux source at a tag", () => {
  const ks = (name: string, source: { kind: string; name: string }, p: string) =>
    at('Kustomization', name, { apiVersion: 'kustomize.toolkit.fluxcd.io/v1beta2', spec: { path: p, sourceRef: source } });
  it('a GitRepository of fluxcd/flux2 at a tag (path ./manifests/install) and the self-upgrade OCIRepository of flux-manifests', () => {
    const objects = [
      at('GitRepository', 'flux-installation', { apiVersion: 'source.toolkit.fluxcd.io/v1beta2', spec: { url: 'https://github.com/fluxcd/flux2', ref: { tag: 'v0.31.4' } } }, 'c/flux-installation.yaml'),
      ks('flux-installation', { kind: 'GitRepository', name: 'flux-installation' }, './manifests/install'),
      at('OCIRepository', 'flux-manifests', { apiVersion: 'source.toolkit.fluxcd.io/v1', spec: { url: 'oci://ghcr.io/fluxcd/flux-manifests', ref: { tag: 'v2.6.4' } } }, 'c/upgrade.yaml'),
      ks('flux-upgrade', { kind: 'OCIRepository', name: 'flux-manifests' }, './'),
    ];
    expect(installsIn('c', objects).map((f) => [f.how, f.version, f.file])).toEqual([
      ['flux-source', 'v0.31.4', 'c/flux-installation.yaml'],
      ['flux-source', 'v2.6.4', 'c/upgrade.yaml'],
    ]);
  });
  it('not another repository, not a source no Kustomization applies, not a flux2 path outside manifests/', () => {
    const objects = [
      at('GitRepository', 'other', { apiVersion: 'source.toolkit.fluxcd.io/v1', spec: { url: 'https://github.com/example/flux2', ref: { tag: 'v1.0.0' } } }),
      ks('other', { kind: 'GitRepository', name: 'other' }, './manifests/install'),
      at('GitRepository', 'unused', { apiVersion: 'source.toolkit.fluxcd.io/v1', spec: { url: 'https://github.com/fluxcd/flux2', ref: { tag: 'v2.1.0' } } }),
      at('GitRepository', 'docs', { apiVersion: 'source.toolkit.fluxcd.io/v1', spec: { url: 'https://github.com/fluxcd/flux2.git', ref: { tag: 'v2.2.0' } } }),
      ks('docs', { kind: 'GitRepository', name: 'docs' }, './docs'),
    ];
    expect(installsIn('c', objects)).toEqual([]);
  });
  it('ranks above the install manifests it replaces once synced', () => {
    const installs: InstalledFlux[] = [
      { cluster: 'c', version: 'v2.2.0', kustomizeController: null, how: 'install-manifests', file: 'gotk.yaml', line: null },
      { cluster: 'c', version: 'v2.6.4', kustomizeController: null, how: 'flux-source', file: 'upgrade.yaml', line: 3 },
    ];
    expect(fluxFor(installs, 'c')?.from.file).toBe('upgrade.yaml');
  });
});

describe('installsIn: the components a FluxInstance lists', () => {
  it('from spec.components and from the flux-instance chart values', () => {
    const objects = [
      at('FluxInstance', 'flux', { apiVersion: 'fluxcd.controlplane.io/v1', spec: { distribution: { version: '2.7.x' }, components: ['source-controller', 'source-watcher'] } }),
      at('HelmRelease', 'flux-instance', { apiVersion: 'helm.toolkit.fluxcd.io/v2', spec: { chartRef: { kind: 'OCIRepository', name: 'flux-instance' }, values: { instance: { components: ['kustomize-controller', 'source-watcher'] } } } }),
    ];
    expect(installsIn('c', objects).map((f) => [f.how, f.components])).toEqual([
      ['flux-instance', ['source-controller', 'source-watcher']],
      ['flux-instance-chart', ['kustomize-controller', 'source-watcher']],
    ]);
  });
});
