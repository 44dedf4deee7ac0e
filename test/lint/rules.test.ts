import { describe, expect, it } from 'vitest';
import { lint } from '../../src/lint/index.js';
import { parseLegacyOrder } from '../../src/lint/rules/legacy-order.js';
import { pluralGuess } from '../../src/lint/rules/runtime-crd.js';
import { emptyBootstrap } from '../../src/model/bootstrap.js';
import { cluster, config, crd, ks, obj, plan } from '../helpers/model.js';

const codes = (ps: { code: string; severity: string }[]) => ps.map((p) => `${p.severity}:${p.code}`);
const PLATFORM = 'flux-system/platform';
const CONFIG = 'flux-system/platform-config';
const CDI_TIER = 'flux-system/platform-config-cdi';

// The example's CDI tiers, reduced: the operator install brings cdis.cdi.kubevirt.io; storageprofiles appears only at runtime.
const seedObjects = (profileOwner: string) => [
  crd('cdi.kubevirt.io', 'CDI', 'cdis', PLATFORM),
  obj('cdi.kubevirt.io/v1beta1', 'CDI', 'cdi', CONFIG),
  obj('cdi.kubevirt.io/v1beta1', 'StorageProfile', 'longhorn-vm', profileOwner),
];

describe('runtime-crd', () => {
  it('flags the pre-fix layout: the StorageProfile in the tier that applies the CDI', () => {
    const c = cluster('prod', [ks('platform'), ks('platform-config', { dependsOn: ['platform'] })], seedObjects(CONFIG));
    const problems = lint({ clusters: [plan(c)], config: config() });
    expect(codes(problems)).toEqual(['error:runtime-crd']);
    expect(problems[0]!.object).toBe('StorageProfile/longhorn-vm');
    expect(problems[0]!.message).toContain('flux-system/platform-config');
    expect(problems[0]!.message).toContain('storageprofiles.cdi.kubevirt.io');
    expect(problems[0]!.message).toMatch(/new tier with dependsOn: \[\{name: platform-config\}\]/);
  });

  it('accepts the fixed layout: a tier that strictly depends on the trigger tier', () => {
    const c = cluster('prod', [ks('platform'), ks('platform-config', { dependsOn: ['platform'] }), ks('platform-config-cdi', { dependsOn: ['platform-config'] })], seedObjects(CDI_TIER));
    expect(lint({ clusters: [plan(c)], config: config() })).toEqual([]);
  });

  it('warns of the race when a runtime CRD is in a tier that does not depend on the trigger tier, naming the dependsOn to add', () => {
    const c = cluster('prod', [ks('platform'), ks('platform-config', { dependsOn: ['platform'] }), ks('platform-config-cdi', { dependsOn: ['platform'] })], seedObjects(CDI_TIER));
    const [p] = lint({ clusters: [plan(c)], config: config() });
    // It converges once platform-config has run (retries): slower, not a deadlock.
    expect(p?.severity).toBe('warning');
    expect(p?.message).toContain('Add dependsOn: [{name: platform-config}] to flux-system/platform-config-cdi');
  });

  it('uses an explicit tiers.yaml runtimeCrds declaration even when the group has no CRD in git', () => {
    const c = cluster('prod', [ks('ops'), ks('cfg', { dependsOn: ['ops'] })], [crd('x.io', 'Trigger', 'triggers', null), obj('x.io/v1', 'Trigger', 't', 'flux-system/ops'), obj('x.io/v1', 'Made', 'm', 'flux-system/ops')]);
    const cfg = config({ clusters: {}, runtimeCrds: [{ kind: 'Made', group: 'x.io', createdBy: { kind: 'Trigger', group: 'x.io' } }] });
    const problems = lint({ clusters: [plan(c)], config: cfg });
    expect(codes(problems)).toEqual(['error:runtime-crd']);
    expect(problems[0]!.message).toContain('tiers.yaml declares that mades.x.io is created at runtime');
  });

  it.each([
    ['the same tier applies the CRD', [crd('a.io', 'Widget', 'widgets', 'flux-system/t')], []],
    ['a tier it depends on applies the CRD', [crd('a.io', 'Widget', 'widgets', 'flux-system/base')], []],
    ['the entry path itself applies the CRD', [crd('a.io', 'Widget', 'widgets', null)], []],
    ['an unrelated tier applies the CRD (a race)', [crd('a.io', 'Widget', 'widgets', 'flux-system/other')], ['warning:runtime-crd']],
    ['a tier that depends on it applies the CRD (a deadlock)', [crd('a.io', 'Widget', 'widgets', 'flux-system/later')], ['error:runtime-crd']],
    ['nobody applies a CRD of that group', [], ['warning:runtime-crd']],
  ])('a Widget whose %s', (_n, crds, expected) => {
    const c = cluster('dev', [ks('base'), ks('other'), ks('t', { dependsOn: ['base'], wait: true }), ks('later', { dependsOn: ['t'] })], [...crds, obj('a.io/v1', 'Widget', 'w', 'flux-system/t')]);
    expect(codes(lint({ clusters: [plan(c)], config: config() }).filter((p) => p.code === 'runtime-crd'))).toEqual(expected);
  });

  it.each([['a.io'], ['widgets.a.io'], ['Widget.a.io']])('externalCrds entry %s silences a CRD of unknown origin', (entry) => {
    const c = cluster('dev', [ks('t')], [obj('a.io/v1', 'Widget', 'w', 'flux-system/t')]);
    expect(lint({ clusters: [plan(c)], config: config({ clusters: {}, externalCrds: [entry] }) })).toEqual([]);
  });

  it('never asks for a CRD for built-in kinds, but does for CRD groups under k8s.io', () => {
    const c = cluster('dev', [ks('t')], [obj('storage.k8s.io/v1', 'StorageClass', 'sc', 'flux-system/t'),
      obj('snapshot.storage.k8s.io/v1', 'VolumeSnapshotClass', 'vsc', 'flux-system/t'), obj('kustomize.toolkit.fluxcd.io/v1', 'Kustomization', 'k', 'flux-system/t')]);
    const problems = lint({ clusters: [plan(c)], config: config() });
    expect(problems.map((p) => p.object)).toEqual(['VolumeSnapshotClass/vsc']);
  });

  describe('a CRD group a HelmRelease of the cluster probably installs (chart named like the group)', () => {
    const hr = (name: string, owner: string, spec: Record<string, unknown> = { chart: { spec: { chart: name } } }) =>
      obj('helm.toolkit.fluxcd.io/v2', 'HelmRelease', name, owner, { spec });
    const issuer = (owner: string) => obj('cert-manager.io/v1', 'ClusterIssuer', 'letsencrypt', owner);
    const tiers = () => [ks('controllers'), ks('configs', { dependsOn: ['controllers'] }), ks('other')];
    const run = (objects: ReturnType<typeof obj>[]) => lint({ clusters: [plan(cluster('dev', tiers(), objects))], config: config() }).filter((p) => p.code === 'runtime-crd');

    it('accepts it from a tier the resource depends on', () => {
      expect(run([hr('cert-manager', 'flux-system/controllers'), issuer('flux-system/configs')])).toEqual([]);
    });

    it('reports the same-tier HelmRelease as the deadlock it is on a cold start', () => {
      const [p, ...rest] = run([hr('cert-manager', 'flux-system/controllers'), issuer('flux-system/controllers')]);
      expect(rest).toEqual([]);
      expect(p?.severity).toBe('error');
      expect(p?.message).toContain('HelmRelease/cert-manager (chart cert-manager) in tier flux-system/controllers installs the CRDs, and it is the same tier');
      expect(p?.message).toContain('dependsOn: [{name: controllers}]');
      expect(p?.message).toContain('externalCrds: [cert-manager.io]');
    });

    it('warns, naming the dependsOn to add, when it sits in a tier the resource does not depend on', () => {
      const [p] = run([hr('cert-manager', 'flux-system/other'), issuer('flux-system/configs')]);
      expect(p?.severity).toBe('warning');
      expect(p?.message).toContain('Add dependsOn: [{name: other}] to flux-system/configs');
    });

    it("matches an OCI chart by its repository's name, and never a generic label", () => {
      const oci = obj('source.toolkit.fluxcd.io/v1', 'OCIRepository', 'charts', 'flux-system/controllers', { spec: { url: 'oci://ghcr.io/x/charts/cert-manager' } });
      const byOci = hr('certs', 'flux-system/controllers', { chartRef: { kind: 'OCIRepository', name: 'charts' } });
      expect(run([oci, byOci, issuer('flux-system/configs')])).toEqual([]);
      // A release called "gateway" says nothing about gateway.networking.k8s.io: the plain unknown-origin warning.
      const [p] = run([hr('gateway', 'flux-system/controllers'), obj('gateway.networking.k8s.io/v1', 'Gateway', 'gw', 'flux-system/configs')]);
      expect(p?.severity).toBe('warning');
      expect(p?.message).toContain('nothing in git or in the bootstrap installs the CRDs of gateway.networking.k8s.io');
      expect(p?.externalCrd).toBe('gateway.networking.k8s.io');
    });
  });

  it.each([['StorageProfile', 'storageprofiles'], ['Ingress', 'ingresses'], ['Policy', 'policies'], ['Gateway', 'gateways'], ['Mesh', 'meshes']])(
    'plural of %s is %s', (kind, plural) => expect(pluralGuess(kind)).toBe(plural));
});

describe('graph rules', () => {
  it('reports a cycle once, with its path and the dependsOn line', () => {
    const c = cluster('dev', [ks('a', { dependsOn: ['b'] }), ks('b', { dependsOn: ['a'] })]);
    const problems = lint({ clusters: [plan(c)], config: config() });
    expect(codes(problems)).toEqual(['error:cycle']);
    expect(problems[0]!.message).toContain('flux-system/a -> flux-system/b -> flux-system/a');
    expect(problems[0]!.line).toBe(5);
  });

  it('reports a missing dependency and suggests the namespace when the name exists elsewhere', () => {
    const c = cluster('dev', [ks('apps', { dependsOn: ['infra'] }), ks('infra', { namespace: 'infra-ns' })]);
    const [p] = lint({ clusters: [plan(c)], config: config() });
    expect(p?.code).toBe('missing-dependency');
    expect(p?.message).toContain('exists as infra-ns/infra: set dependsOn[].namespace');
  });

  it('reports a duplicate definition at the second one, pointing at the first', () => {
    const c = cluster('dev', [ks('a'), ks('a', { origin: { file: 'other.yaml', line: 9 } })]);
    const [p] = lint({ clusters: [plan(c)], config: config() });
    expect(p).toMatchObject({ code: 'duplicate', file: 'other.yaml', line: 9 });
    expect(p?.message).toContain('clusters/dev/a.yaml:1');
  });

  it('warns when a tier others depend on does not wait for health', () => {
    const c = cluster('dev', [ks('a', { wait: false }), ks('b', { dependsOn: ['a'], wait: false }), ks('c', { wait: false, healthChecks: 1 }), ks('d', { dependsOn: ['c'] })]);
    const problems = lint({ clusters: [plan(c)], config: config() });
    expect(problems.map((p) => `${p.code}:${p.object}`)).toEqual(['wait-dependency:Kustomization/flux-system/a']);
  });
  it('a tier whose every HelmRelease the bootstrap installs before Flux: an info naming the bootstrap; one it does not install stays a warning', () => {
    const hr = (name: string, owner: string) => ({ ...obj('helm.toolkit.fluxcd.io/v2', 'HelmRelease', name, owner), namespace: 'kube-system' });
    const c = cluster('dev', [ks('cilium', { wait: false }), ks('cilium-config', { dependsOn: ['cilium'] }), ks('mixed', { wait: false }), ks('after', { dependsOn: ['mixed'] })], [
      hr('cilium', 'flux-system/cilium'),
      hr('cilium', 'flux-system/mixed'),
      hr('hubble-ui', 'flux-system/mixed'),
    ]);
    const bootstrap = {
      ...emptyBootstrap(),
      installs: [
        { name: 'cilium', namespace: 'kube-system', kind: 'helmfile-release' as const, chart: 'cilium/cilium', groups: [], file: 'bootstrap/helmfile.yaml', line: 7 },
        // Rendered for its CRDs only (helm template --include-crds): the release itself is not running.
        { name: 'hubble-ui', namespace: 'kube-system', kind: 'helmfile-release' as const, chart: 'cilium/hubble-ui', groups: [], file: 'bootstrap/crds.yaml', line: 3, crdsOnly: true },
      ],
    };
    const problems = lint({ clusters: [plan(c)], config: config(), bootstrap }).filter((p) => p.code === 'wait-dependency');
    expect(problems.map((p) => [p.object, p.severity])).toEqual([
      ['Kustomization/flux-system/cilium', 'info'],
      ['Kustomization/flux-system/mixed', 'warning'],
    ]);
    expect(problems[0]!.message).toContain('every HelmRelease it applies (kube-system/cilium) is installed before Flux by the bootstrap (bootstrap/helmfile.yaml:7)');
  });
  it('leaves out dependents the tier applies itself (a child depending on its ancestor): wait: true there would deadlock', () => {
    const c = cluster('dev', [
      ks('root', { wait: false }),
      ks('apps', { parent: 'flux-system/root', dependsOn: ['root'], wait: false }),
      ks('web', { parent: 'flux-system/apps', dependsOn: ['root'], wait: false }),
      ks('infra', { wait: false }),
      ks('db', { parent: 'flux-system/infra', dependsOn: ['infra'] }),
      ks('api', { dependsOn: ['infra'] }),
    ]);
    const problems = lint({ clusters: [plan(c)], config: config() }).filter((p) => p.code === 'wait-dependency');
    expect(problems.map((p) => p.object)).toEqual(['Kustomization/flux-system/infra']);
    expect(problems[0]!.message).toContain('has 1 dependent(s) (flux-system/api)');
  });
});

describe('cluster-drift', () => {
  const cfg = config({ clusters: { dev: { path: 'clusters/dev', identicalTo: ['prod'] }, prod: { path: 'clusters/prod' } } });
  it('passes identical graphs', () => {
    const nodes = () => [ks('a'), ks('b', { dependsOn: ['a'] })];
    expect(lint({ clusters: [plan(cluster('dev', nodes())), plan(cluster('prod', nodes()))], config: cfg })).toEqual([]);
  });
  it('shows every difference in nodes and edges', () => {
    const dev = cluster('dev', [ks('a'), ks('b', { dependsOn: ['a'] }), ks('c')]);
    const prod = cluster('prod', [ks('a'), ks('b')]);
    const [p] = lint({ clusters: [plan(dev), plan(prod)], config: cfg });
    expect(p?.code).toBe('cluster-drift');
    expect(p?.message).toContain('Kustomization flux-system/c: only in dev');
    expect(p?.message).toContain('dependsOn flux-system/b -> flux-system/a: only in dev');
  });
});

describe('legacy-order', () => {
  const cdi = cluster('prod', [ks('platform'), ks('platform-config', { dependsOn: ['platform'] }), ks('platform-config-cdi', { dependsOn: ['platform-config'] }), ks('apps-vms', { dependsOn: ['platform-config-cdi'] })]);
  const run = (text: string) => lint({ clusters: [plan(cdi)], config: config(), legacyOrder: { file: 'bootstrap/standup.sh', tiers: parseLegacyOrder(text) } });

  it('reports the tier the hand-kept list misses (platform-config-cdi, added to the graph after the list was written)', () => {
    const problems = run('#!/bin/bash\nTIER_ORDER=(\n  platform\n  platform-config   # core\n  "apps-vms"\n)\necho\n');
    expect(codes(problems)).toEqual(['error:legacy-order']);
    expect(problems[0]!.message).toContain('misses flux-system/platform-config-cdi');
    expect(problems[0]!.message).toContain('TIER_ORDER=(platform platform-config platform-config-cdi apps-vms)');
  });
  it('reports a tier listed before its dependency, at its line', () => {
    const problems = run('platform-config\nplatform\nplatform-config-cdi\napps-vms\n');
    expect(problems.map((p) => [p.code, p.line])).toEqual([['legacy-order', 1]]);
    expect(problems[0]!.message).toContain('puts platform-config before platform');
  });
  it('accepts a list in the derived order', () => expect(run('TIER_ORDER=(platform platform-config platform-config-cdi apps-vms)')).toEqual([]));
  it('parses one-line and multi-line arrays with quotes and comments', () => {
    expect(parseLegacyOrder('declare -a TIER_ORDER=("a" \'b\' c) # x').map((t) => t.name)).toEqual(['a', 'b', 'c']);
    expect(parseLegacyOrder('X=1\nTIER_ORDER=(\n a # one\n b\n)\nY=(z)').map((t) => [t.name, t.line])).toEqual([['a', 3], ['b', 4]]);
  });
});
