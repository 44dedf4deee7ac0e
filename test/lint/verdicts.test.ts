import { describe, expect, it } from 'vitest';
import { lint } from '../../src/lint/index.js';
import type { Bootstrap } from '../../src/model/bootstrap.js';
import { emptyBootstrap } from '../../src/model/bootstrap.js';
import { cluster, config, ks, obj, plan } from '../helpers/model.js';

// runtime-crd's three verdicts (ordered: nothing; race: warning; deadlock: error), and the two new rules.
const hr = (name: string, owner: string, chart = name, extra: Record<string, unknown> = {}) =>
  obj('helm.toolkit.fluxcd.io/v2', 'HelmRelease', name, owner, { spec: { chart: { spec: { chart } }, ...extra } });
const monitor = (owner: string) => obj('monitoring.coreos.com/v1', 'ServiceMonitor', 'm', owner);
const crdFindings = (c: ReturnType<typeof cluster>, bootstrap: Bootstrap = emptyBootstrap(), cfg = config()) =>
  lint({ clusters: [plan(c)], config: cfg, bootstrap }).filter((p) => p.code === 'runtime-crd').map((p) => `${p.severity}:${p.tier}`);

describe('runtime-crd verdicts with a chart the table knows (kube-prometheus-stack -> monitoring.coreos.com)', () => {
  it.each([
    ['the app depends on the installer tier: ordered', [ks('o11y'), ks('app', { dependsOn: ['o11y'] })], 'flux-system/app', []],
    ['the app does not depend on it: a race, a warning', [ks('o11y'), ks('app')], 'flux-system/app', ['warning:flux-system/app']],
    ['the resource is in the installer tier: a deadlock, an error', [ks('o11y')], 'flux-system/o11y', ['error:flux-system/o11y']],
    ['the installer tier depends on the app: a deadlock', [ks('o11y', { dependsOn: ['app'] }), ks('app')], 'flux-system/app', ['error:flux-system/app']],
    ["the app's parent depends on the installer: ordered (parents' dependsOn count)", [ks('o11y'), ks('apps', { dependsOn: ['o11y'] }), ks('app', { parent: 'flux-system/apps' })], 'flux-system/app', []],
    ['the installer is a child of a wait: true tier the app depends on: ordered', [ks('infra', { wait: true }), ks('o11y', { parent: 'flux-system/infra' }), ks('app', { dependsOn: ['infra'] })], 'flux-system/app', []],
    ['the installer is applied by the app\'s own parent: a race (the HelmRelease installs later)', [ks('apps'), ks('app', { parent: 'flux-system/apps' })], 'flux-system/app', ['warning:flux-system/app']],
  ])('%s', (_n, tiers, owner, expected) => {
    const installerTier = tiers.some((t) => t.name === 'o11y') ? 'flux-system/o11y' : 'flux-system/apps';
    const c = cluster('dev', tiers, [hr('kube-prometheus-stack', installerTier), monitor(owner)]);
    expect(crdFindings(c)).toEqual(expected);
  });

  it('names the dependsOn to add in a race, with the namespace when it differs', () => {
    const c = cluster('dev', [ks('o11y', { namespace: 'observability' }), ks('app')], [hr('kube-prometheus-stack', 'observability/o11y'), monitor('flux-system/app')]);
    const [p] = lint({ clusters: [plan(c)], config: config() }).filter((x) => x.code === 'runtime-crd');
    expect(p?.message).toContain('Add dependsOn: [{name: o11y, namespace: observability}] to flux-system/app');
    expect(p?.installer).toBe('HelmRelease/kube-prometheus-stack (chart kube-prometheus-stack) in tier observability/o11y');
  });

  it('a chart with install.crds: Skip installs nothing', () => {
    const c = cluster('dev', [ks('o11y'), ks('app', { dependsOn: ['o11y'] })], [hr('kube-prometheus-stack', 'flux-system/o11y', 'kube-prometheus-stack', { install: { crds: 'Skip' } }), monitor('flux-system/app')]);
    expect(crdFindings(c)).toEqual(['warning:flux-system/app']);
  });
});

describe('runtime-crd: what exists before Flux', () => {
  const deadlocked = () => cluster('dev', [ks('o11y')], [hr('kube-prometheus-stack', 'flux-system/o11y'), monitor('flux-system/o11y')]);
  const release = (name: string, chart: string | null): Bootstrap => ({ ...emptyBootstrap(), installs: [{ name, namespace: 'o11y', kind: 'helmfile-release', chart, groups: [], file: 'bootstrap/helmfile/crds.yaml', line: 3 }] });

  it('a bootstrap helmfile release of the chart: no finding (a same-tier CR of that chart is no deadlock there)', () => {
    expect(crdFindings(deadlocked())).toEqual(['error:flux-system/o11y']);
    expect(crdFindings(deadlocked(), release('kps', 'oci://ghcr.io/prometheus-community/charts/kube-prometheus-stack'))).toEqual([]);
  });

  it('a templated release chart resolves through the HelmRelease of the same name', () => {
    const c = cluster('dev', [ks('o11y')], [obj('helm.toolkit.fluxcd.io/v2', 'HelmRelease', 'kps', 'flux-system/o11y', { spec: { chart: { spec: { chart: 'kube-prometheus-stack' } } } }), monitor('flux-system/o11y')]);
    c.objects[0]!.namespace = 'o11y';
    expect(crdFindings(c, release('kps', null))).toEqual([]);
  });

  it('a platform serves its groups (talos.dev on Talos)', () => {
    const c = cluster('dev', [ks('t')], [obj('talos.dev/v1alpha1', 'ServiceAccount', 'sa', 'flux-system/t')]);
    expect(crdFindings(c)).toEqual(['warning:flux-system/t']);
    expect(crdFindings(c, { ...emptyBootstrap(), platforms: [{ platform: 'talos', from: 'tiers.yaml' }] })).toEqual([]);
  });

  it('a CRD group read statically from a tier whose build failed counts as applied by that tier', () => {
    const c = cluster('dev', [ks('crds'), ks('app', { dependsOn: ['crds'] })], [monitor('flux-system/app')]);
    expect(crdFindings(c, { ...emptyBootstrap(), tierCrds: [{ cluster: 'dev', tier: 'flux-system/crds', groups: ['monitoring.coreos.com'], charts: [] }] })).toEqual([]);
  });
});

describe('runtime-crd: doubt is said as such', () => {
  it('a release named like the group, with a chart the table does not know, is a guess: a warning even in the same tier', () => {
    const c = cluster('dev', [ks('t')], [hr('acme-operator', 'flux-system/t'), obj('acme.io/v1', 'Thing', 'x', 'flux-system/t')]);
    const [p] = lint({ clusters: [plan(c)], config: config() }).filter((x) => x.code === 'runtime-crd');
    expect(p?.severity).toBe('warning');
    expect(p?.message).toContain('a guess by name only');
  });

  it('with a tier that was not expanded before it, "nothing installs it" is only a note', () => {
    const c = cluster('dev', [ks('ext', { repoPath: null }), ks('app', { dependsOn: ['ext'] })], [obj('kyverno.io/v1', 'ClusterPolicy', 'p', 'flux-system/app')]);
    const [p] = lint({ clusters: [plan(c)], config: config() }).filter((x) => x.code === 'runtime-crd');
    expect(p?.severity).toBe('info');
    expect(p?.message).toContain('flux-system/ext runs before flux-system/app but was not expanded');
  });
});

describe('helmrelease-order', () => {
  const dep = (name: string, owner: string, on: string) => obj('helm.toolkit.fluxcd.io/v2', 'HelmRelease', name, owner, { spec: { dependsOn: [{ name: on }] } });
  const run = (tiers: ReturnType<typeof ks>[]) =>
    lint({ clusters: [plan(cluster('dev', tiers, [dep('mosquitto', 'flux-system/mosquitto', 'none'), dep('zigbee', 'flux-system/zigbee', 'mosquitto')]))], config: config() })
      .filter((p) => p.code === 'helmrelease-order').map((p) => `${p.severity}:${p.object}`);
  it.each([
    ['the tiers are ordered by dependsOn: fine', [ks('mosquitto'), ks('zigbee', { dependsOn: ['mosquitto'] })], []],
    ['no tier order (zigbee -> mosquitto): a hidden order, a warning', [ks('mosquitto'), ks('zigbee')], ['warning:HelmRelease/zigbee']],
    ["the target's tier depends on the waiting tier: a deadlock", [ks('mosquitto', { dependsOn: ['zigbee'] }), ks('zigbee', { wait: true })], ['error:HelmRelease/zigbee']],
  ])('%s', (_n, tiers, expected) => expect(run(tiers)).toEqual(expected));
});

describe('health-check-target', () => {
  it('names the near match in another namespace', () => {
    const k = ks('cert-manager', { raw: { spec: { healthChecks: [{ apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease', name: 'cert-manager', namespace: 'cert-manager' }] } }, timeout: '5m' });
    const release = obj('helm.toolkit.fluxcd.io/v2', 'HelmRelease', 'cert-manager', 'flux-system/cert-manager');
    release.namespace = 'flux-system';
    const [p] = lint({ clusters: [plan(cluster('dev', [k], [release]))], config: config() }).filter((x) => x.code === 'health-check-target');
    expect(p?.message).toContain('health-checks HelmRelease/cert-manager/cert-manager, which no tier creates; HelmRelease/flux-system/cert-manager exists');
    release.namespace = 'cert-manager';
    expect(lint({ clusters: [plan(cluster('dev', [k], [release]))], config: config() }).filter((x) => x.code === 'health-check-target')).toEqual([]);
  });
});
