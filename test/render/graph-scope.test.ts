import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TierFileScan, type ScanQuestion } from '../../src/render/tier-file-scan.js';
import { HELM_DEPENDS_ON, helmReleaseNamed, objectNamed } from '../../src/render/scan-questions.js';
import { KustomizationFiles } from '../../src/repo/kustomization-file.js';
import { loadRepository } from '../../src/load/load-repository.js';
import { cleanupRepos, cm, devTiers, ks, makeRepo } from '../helpers/repo-fixtures.js';

afterAll(cleanupRepos);

const kz = (body: string) => `apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n${body}`;
const deploy = (name: string) => `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: ${name}\nspec: {}\n`;

describe('TierFileScan: can a build yield a Flux Kustomization?', () => {
  const scan = (files: Record<string, string>, dir: string, components: string[] = []) => {
    const root = makeRepo(files);
    return new TierFileScan(new KustomizationFiles()).mayApplyKustomizations(path.join(root, dir), components);
  };

  it('no for a leaf app: plain objects, patches and generators cannot create one', () => {
    expect(
      scan(
        {
          'app/kustomization.yaml': kz('resources: [deploy.yaml, ../base]\nconfigMapGenerator:\n  - name: x\n    files: [missing-is-fine.txt]\npatches:\n  - path: patch.yaml\n'),
          'app/deploy.yaml': deploy('a'),
          'app/patch.yaml': 'apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: never-a-resource\n',
          'base/kustomization.yaml': kz('resources: [svc.yaml]\n'),
          'base/svc.yaml': 'apiVersion: v1\nkind: Service\nmetadata:\n  name: s\n',
        },
        'app',
      ),
    ).toBe(false);
  });

  it('yes when a resource two kustomizations down is a Flux Kustomization', () => {
    expect(
      scan(
        {
          'app/kustomization.yaml': kz('resources: [../base]\n'),
          'base/kustomization.yaml': kz('resources: [ks.yaml]\n'),
          'base/ks.yaml': ks('child', { path: './x' }),
        },
        'app',
      ),
    ).toBe(true);
  });

  it("yes when it comes from a component, the kustomization's or the Flux spec.components'", () => {
    const files = {
      'app/kustomization.yaml': kz('resources: [deploy.yaml]\n'),
      'app/deploy.yaml': deploy('a'),
      'comp/kustomization.yaml': 'apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nresources: [ks.yaml]\n',
      'comp/ks.yaml': ks('from-component', { path: './x' }),
    };
    expect(scan(files, 'app')).toBe(false);
    expect(scan(files, 'app', ['../comp'])).toBe(true);
    expect(scan({ ...files, 'app/kustomization.yaml': kz('resources: [deploy.yaml]\ncomponents: [../comp]\n') }, 'app')).toBe(true);
  });

  it("follows Flux's generated kustomization when the path has none", () => {
    expect(scan({ 'apps/a.yaml': deploy('a'), 'apps/deep/er/b.yaml': deploy('b') }, 'apps')).toBe(false);
    expect(scan({ 'apps/a.yaml': deploy('a'), 'apps/deep/er/b.yaml': ks('b', { path: './b' }) }, 'apps')).toBe(true);
  });

  it('yes whenever it cannot tell: remote bases, Helm charts, plugins, a missing or broken input', () => {
    expect(scan({ 'a/kustomization.yaml': kz('resources: [https://github.com/x/y//deploy?ref=v1]\n') }, 'a')).toBe(true);
    expect(scan({ 'a/kustomization.yaml': kz('helmCharts:\n  - name: c\n') }, 'a')).toBe(true);
    expect(scan({ 'a/kustomization.yaml': kz('transformers: [t.yaml]\n'), 'a/t.yaml': 'kind: X\n' }, 'a')).toBe(true);
    expect(scan({ 'a/kustomization.yaml': kz('resources: [missing.yaml]\n') }, 'a')).toBe(true);
    expect(scan({ 'a/kustomization.yaml': kz('resources: [../nokust]\n'), 'nokust/x.yaml': deploy('x') }, 'a')).toBe(true);
    expect(scan({ 'a/kustomization.yaml': 'resources: [\n' }, 'a')).toBe(true);
  });
});

describe('scan questions (scan-questions.ts): which deferred leaves plan builds after all', () => {
  const ask = (q: ScanQuestion, files: Record<string, string>, dir = 'app', components: string[] = []) =>
    new TierFileScan(new KustomizationFiles(), () => false, q).may(path.join(makeRepo(files), dir), components);
  const hr = (name: string, extra = '') => `apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: ${name}\nspec:\n${extra}  interval: 1h\n`;

  it('HelmRelease dependsOn: a block or flow list with an item, or a patch that adds one; never `dependsOn: []`', () => {
    expect(ask(HELM_DEPENDS_ON, { 'app/hr.yaml': hr('a', '  dependsOn:\n    - name: b\n') })).toBe(true);
    expect(ask(HELM_DEPENDS_ON, { 'app/hr.yaml': hr('a', '  dependsOn: [{name: b}]\n') })).toBe(true);
    expect(ask(HELM_DEPENDS_ON, { 'app/hr.yaml': hr('a', '  dependsOn: []\n') })).toBe(false);
    expect(ask(HELM_DEPENDS_ON, { 'app/deploy.yaml': deploy('a') })).toBe(false);
    const patched = {
      'app/kustomization.yaml': kz('resources: [hr.yaml]\ncomponents: [../comp]\n'),
      'app/hr.yaml': hr('a'),
      'comp/kustomization.yaml': 'apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\npatches:\n  - target: {kind: HelmRelease}\n    patch: |-\n      - op: add\n        path: /spec/dependsOn/-\n        value: {name: db}\n',
    };
    expect(ask(HELM_DEPENDS_ON, patched)).toBe(true);
    expect(ask(HELM_DEPENDS_ON, { ...patched, 'app/kustomization.yaml': kz('resources: [hr.yaml]\n') })).toBe(false);
    // Flux's spec.components count as the kustomization's own.
    expect(ask(HELM_DEPENDS_ON, { ...patched, 'app/kustomization.yaml': kz('resources: [hr.yaml]\n') }, 'app', ['../comp'])).toBe(true);
    // Where the files cannot tell, no: plan fetches nothing for this (check builds every tier).
    expect(ask(HELM_DEPENDS_ON, { 'app/kustomization.yaml': kz('resources: [https://github.com/x/y//hr?ref=v1]\n') })).toBe(false);
  });

  it('a HelmRelease named as depended on: plain, quoted, after an anchor, or through a variable', () => {
    const q = helmReleaseNamed(['mosquitto']);
    expect(ask(q, { 'app/hr.yaml': hr('&app mosquitto') })).toBe(true);
    expect(ask(q, { 'app/hr.yaml': hr('"mosquitto"') })).toBe(true);
    expect(ask(q, { 'app/hr.yaml': hr('${APP}') })).toBe(true);
    expect(ask(q, { 'app/hr.yaml': hr('mosquitto-exporter') })).toBe(false);
    expect(ask(q, { 'app/cm.yaml': cm('mosquitto') })).toBe(false);
    // kustomize renames it: `mqtt-` + `mosquitto` may be the one depended on.
    expect(ask(q, { 'app/kustomization.yaml': kz('namePrefix: mqtt-\nresources: [hr.yaml]\n'), 'app/hr.yaml': hr('other') })).toBe(true);
    expect(ask(q, { 'app/kustomization.yaml': kz('resources: [hr.yaml]\n'), 'app/hr.yaml': hr('other') })).toBe(false);
  });

  it('a substituteFrom source: a ConfigMap or Secret of that name, any generator, and yes where it cannot tell', () => {
    const q = objectNamed(['cluster-vars']);
    expect(ask(q, { 'app/cm.yaml': cm('cluster-vars') })).toBe(true);
    expect(ask(q, { 'app/cm.yaml': cm('other') })).toBe(false);
    expect(ask(q, { 'app/kustomization.yaml': kz('configMapGenerator:\n  - name: x\n    literals: [a=b]\n') })).toBe(true);
    expect(ask(q, { 'app/kustomization.yaml': kz('resources: [https://github.com/x/y//vars?ref=v1]\n') })).toBe(true);
  });
});

describe("loading with scope 'graph' (plan, graph)", () => {
  const repo = () =>
    makeRepo({
      'tiers.yaml': devTiers,
      // vars: a leaf holding the ConfigMap that apps substitutes from; web: a leaf nobody reads.
      'clusters/dev/vars.yaml': ks('vars', { path: './vars' }),
      'clusters/dev/web.yaml': ks('web', { path: './web' }),
      'clusters/dev/apps.yaml': ks('apps', { path: './apps', dependsOn: [{ name: 'vars' }], postBuild: { substituteFrom: [{ kind: 'ConfigMap', name: 'cluster-vars' }] } }),
      'vars/cm.yaml': cm('cluster-vars', { ENV: 'staging' }, 'flux-system'),
      'web/deploy.yaml': deploy('web'),
      // The child's path and dependsOn come from the variable: the leaf `vars` must be built to know them.
      'apps/child.yaml': ks('child', { path: './apps-${ENV}', dependsOn: [{ name: 'web-${ENV}' }] }),
      'apps-staging/deploy.yaml': deploy('child'),
    });

  it('builds the deferred leaf tiers when a substitution needs their objects; leaves found later stay unbuilt', async () => {
    const root = repo();
    const full = await loadRepository({ repo: root });
    const fullBuilds = full.stats.builds;
    const graph = await loadRepository({ repo: root, scope: 'graph' });
    const graphBuilds = graph.stats.builds;
    const child = (r: typeof full) => r.clusters[0]!.kustomizations.find((k) => k.name === 'child')!;
    expect(child(graph).path).toBe('./apps-staging');
    expect(child(graph).dependsOn.map((d) => d.key)).toEqual(['flux-system/web-staging']);
    // The same node, except that the graph load never built it (a leaf nobody needed).
    expect(child(graph).expansion).toBe('deferred');
    expect(child(full).expansion).toBe('built');
    expect({ ...child(graph), expansion: null }).toEqual({ ...child(full), expansion: null });
    expect(graph.clusters[0]!.kustomizations.map((k) => k.key)).toEqual(full.clusters[0]!.kustomizations.map((k) => k.key));
    // vars/ and web/ were deferred when apps needed cluster-vars: vars/ (whose files name a ConfigMap cluster-vars)
    // was built then, web/ (no such ConfigMap) never was, nor was apps-staging/, deferred after that.
    expect(graphBuilds).toBe(fullBuilds - 2);
    expect(graph.clusters[0]!.objects.some((o) => o.name === 'cluster-vars')).toBe(true);
    expect(graph.clusters[0]!.objects.filter((o) => o.kind === 'Deployment').map((o) => o.name)).toEqual([]);
    expect(Object.fromEntries(graph.clusters[0]!.kustomizations.map((k) => [k.name, k.expansion]))).toMatchObject({ vars: 'built', web: 'deferred' });
    expect(graph.clusters[0]!.objectsComplete).toBe(false);
    expect(full.clusters[0]!.objectsComplete).toBe(true);
  });

  it('builds the leaf that defines a GitRepository before deciding whether a tier is in this repository', async () => {
    const root = makeRepo({
      'tiers.yaml': devTiers,
      'clusters/dev/sources.yaml': ks('sources', { path: './sources' }),
      'clusters/dev/other.yaml': ks('other', { path: './apps', sourceRef: { kind: 'GitRepository', name: 'mirror' } }).replace(
        /  sourceRef:\n    kind: GitRepository\n    name: flux-system\n    namespace: flux-system\n/,
        '',
      ),
      'sources/mirror.yaml': 'apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata:\n  name: mirror\n  namespace: flux-system\nspec:\n  url: https://example.com/elsewhere.git\n',
      'apps/deploy.yaml': deploy('a'),
    });
    const full = await loadRepository({ repo: root });
    const graph = await loadRepository({ repo: root, scope: 'graph' });
    const ext = (r: typeof full) => r.clusters[0]!.externalSources.map((e) => [e.ref.name, e.url, e.usedBy]);
    expect(ext(graph)).toEqual([['mirror', 'https://example.com/elsewhere.git', ['flux-system/other']]]);
    expect(ext(graph)).toEqual(ext(full));
  });
});
