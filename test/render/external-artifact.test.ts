import { afterAll, describe, expect, it } from 'vitest';
import { loadRepository } from '../../src/load/load-repository.js';
import { cleanupRepos, devTiers, makeRepo } from '../helpers/repo-fixtures.js';

afterAll(cleanupRepos);

// Flux 2.7's ArtifactGenerator (source-watcher) composes an ExternalArtifact from the repository; a Kustomization
// reading it resolves spec.path inside that artifact, not the repository.
const generator = (copy: string, sources = '    - alias: repo\n      kind: GitRepository\n      name: flux-system\n') =>
  `apiVersion: source.extensions.fluxcd.io/v1beta1\nkind: ArtifactGenerator\nmetadata:\n  name: gen\n  namespace: flux-system\nspec:\n  sources:\n${sources}  artifacts:\n    - name: infra\n      copy:\n${copy}`;
const reader = (p: string) =>
  `apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: controllers\n  namespace: flux-system\nspec:\n  interval: 1h\n  prune: true\n  path: ${p}\n  sourceRef:\n    kind: ExternalArtifact\n    name: infra\n`;
const cm = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: default\n`;

const load = (files: Record<string, string>) => loadRepository({ repo: makeRepo({ 'tiers.yaml': devTiers, ...files }) });

describe('Kustomizations reading an ExternalArtifact made from this repository', () => {
  it('renders spec.path inside the generated artifact, with origins in the repository', async () => {
    const r = await load({
      'clusters/dev/gen.yaml': generator('        - from: "@repo/infrastructure/**"\n          to: "@artifact/"\n'),
      'clusters/dev/controllers.yaml': reader('./controllers'),
      'infrastructure/controllers/kustomization.yaml': 'resources: [cm.yaml]\n',
      'infrastructure/controllers/cm.yaml': cm('from-artifact'),
      // A directory of the same name at the repository root must not be what is built.
      'controllers/cm.yaml': cm('wrong-one'),
    });
    expect(r.problems).toEqual([]);
    const dev = r.clusters[0]!;
    expect(dev.externalSources).toEqual([]);
    const o = dev.objects.find((x) => x.owner === 'flux-system/controllers');
    expect(o).toMatchObject({ kind: 'ConfigMap', name: 'from-artifact', origin: { file: 'infrastructure/controllers/cm.yaml', line: 4 } });
  });

  it('fails as Flux does when the path or a reference leaves what the artifact holds', async () => {
    const r = await load({
      'clusters/dev/gen.yaml': generator('        - from: "@repo/infrastructure/controllers/**"\n          to: "@artifact/controllers/"\n'),
      'clusters/dev/controllers.yaml': reader('./controllers'),
      'clusters/dev/other.yaml': reader('./configs').replace('name: controllers', 'name: configs'),
      // ../base is in the repository but was not copied into the artifact.
      'infrastructure/controllers/kustomization.yaml': 'resources: [../base]\n',
      'infrastructure/base/kustomization.yaml': 'resources: [cm.yaml]\n',
      'infrastructure/base/cm.yaml': cm('base'),
    });
    const codes = r.problems.map((p) => [p.code, p.object]);
    expect(codes).toContainEqual(['path-missing', 'Kustomization/flux-system/configs']);
    expect(codes).toContainEqual(['build-failed', 'Kustomization/flux-system/controllers']);
    const pm = r.problems.find((p) => p.code === 'path-missing')!;
    expect(pm.message).toContain('does not exist in the ArtifactGenerator flux-system/gen, artifact infra');
    const bf = r.problems.find((p) => p.code === 'build-failed')!;
    expect(bf.message).not.toMatch(/\/dev\/shm|standup-render/);
  });

  it('reports a generator source-watcher would reject, and a copy that matches nothing, on the generator', async () => {
    const r = await load({
      'clusters/dev/gen.yaml': generator('        - from: "@repo/nothing-here/*.yaml"\n          to: "@artifact/"\n'),
      'clusters/dev/controllers.yaml': reader('./controllers'),
    });
    expect(r.problems.map((p) => [p.code, p.severity, p.object, p.file])).toEqual([
      ['build-failed', 'error', 'ArtifactGenerator/flux-system/gen', 'clusters/dev/gen.yaml'],
    ]);
    expect(r.problems[0]!.message).toContain('no files match pattern');
  });

  it('lists the artifact as external when one of its sources is not this repository', async () => {
    const r = await load({
      'clusters/dev/gen.yaml': generator('        - from: "@other/**"\n          to: "@artifact/"\n', '    - alias: other\n      kind: OCIRepository\n      name: charts\n'),
      'clusters/dev/controllers.yaml': reader('./controllers'),
    });
    expect(r.problems.map((p) => [p.code, p.severity, p.object])).toEqual([['external-source', 'info', 'Kustomization/flux-system/controllers']]);
    expect(r.problems[0]!.message).toContain('ExternalArtifact flux-system/infra is made by ArtifactGenerator flux-system/gen from a source that is not this repository');
    expect(r.clusters[0]!.externalSources.map((e) => [e.ref.kind, e.ref.name, e.usedBy])).toEqual([['ExternalArtifact', 'infra', ['flux-system/controllers']]]);
  });
});
