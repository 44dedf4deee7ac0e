import { beforeAll, describe, expect, it } from 'vitest';
import type { ClusterModel, FluxKustomization } from '../../src/model/flux.js';
import { loadRepository, type LoadedRepository } from '../../src/load/load-repository.js';
import { fixture } from '../helpers/repo-fixtures.js';

// test/fixtures/repo/flux-rules: one cluster found through clusters/dev/flux-system/gotk-sync.yaml. See its README.
describe('rendering with Flux rules (fixture flux-rules)', () => {
  let repo: LoadedRepository;
  let dev: ClusterModel;
  const ks = (key: string): FluxKustomization => {
    const k = dev.kustomizations.find((x) => x.key === key);
    if (!k) throw new Error(`no Kustomization ${key}; have ${dev.kustomizations.map((x) => x.key).join(', ')}`);
    return k;
  };
  const obj = (kind: string, name: string) => dev.objects.find((o) => o.kind === kind && o.name === name);

  beforeAll(async () => {
    repo = await loadRepository({ repo: fixture('flux-rules') });
    dev = repo.clusters[0]!;
  });

  it('discovers the cluster from gotk-sync.yaml and names it after its directory', () => {
    expect(repo.configText).toBeNull();
    expect(repo.clusters.map((c) => [c.name, c.entry])).toEqual([['dev', 'clusters/dev']]);
  });

  it('generates a kustomization for a path without one: recursive, dotfiles included, kustomization subdirs as one resource', () => {
    // clusters/dev has no kustomization.yaml: its flux-system/ files and tiers.yaml are all found.
    // The root sync reconciles the entry path, so it applies (parents) what the entry holds.
    expect(ks('flux-system/infra').parent).toBe('flux-system/flux-system');
    expect(ks('flux-system/flux-system').parent).toBeNull();
    expect(obj('ConfigMap', 'cluster-vars')?.owner).toBe('flux-system/flux-system');
    // apps/ has none either: .hidden.yaml is a resource; nested/ has a kustomization, so only what it lists.
    expect(ks('apps/hidden').parent).toBe('flux-system/apps');
    expect(obj('ConfigMap', 'nested')?.owner).toBe('flux-system/apps');
    expect(obj('ConfigMap', 'not-listed')).toBeUndefined();
  });

  it('keys Kustomizations by namespace/name, the namespace coming from the build', () => {
    expect(dev.kustomizations.map((k) => k.key).sort()).toEqual([
      'apps/app-a',
      'apps/hidden',
      'flux-system/addons',
      'flux-system/apps',
      'flux-system/flux-system',
      'flux-system/infra',
      'infra/cert-manager',
      'infra/crds',
    ]);
    // infra/kustomization.yaml sets `namespace: infra` for children written without one.
    expect(ks('infra/cert-manager').namespace).toBe('infra');
  });

  it('defaults a dependsOn namespace to the dependent namespace', () => {
    expect(ks('infra/cert-manager').dependsOn.map((d) => d.key)).toEqual(['infra/crds', 'flux-system/flux-system']);
    expect(ks('flux-system/apps').dependsOn.map((d) => d.key)).toEqual(['flux-system/infra']);
  });

  it("applies the parent's targetNamespace to its child Kustomizations, over their own metadata.namespace", () => {
    // apps/app-a.yaml says `namespace: somewhere-else`; the parent's targetNamespace wins, as in kustomize-controller.
    expect(ks('apps/app-a').namespace).toBe('apps');
    expect(ks('apps/app-a').dependsOn.map((d) => d.key)).toEqual(['apps/hidden']);
  });

  it("applies the parent's patches: a $patch: delete by label removes a child Kustomization", () => {
    expect(dev.kustomizations.some((k) => k.name === 'apps-extra')).toBe(false);
    expect(obj('ConfigMap', 'extra')).toBeUndefined();
  });

  it("applies the parent's components", () => {
    expect((obj('ConfigMap', 'nested')?.raw.metadata as { labels?: Record<string, string> }).labels).toEqual({ team: 'platform' });
  });

  it('substitutes postBuild variables: ConfigMap, then inline substitute wins; defaults, escapes and opt-out', () => {
    const data = obj('ConfigMap', 'settings')?.raw.data as Record<string, unknown>;
    expect(data).toEqual({
      cluster: 'dev',
      domain: 'inline.example.com',
      withDefault: 'fallback',
      withDash: 'dash',
      escaped: '${KEPT}',
      plain: '$NOT_BRACED',
      replicas: 3,
      upper: 'DEV',
    });
    expect((obj('ConfigMap', 'opted-out')?.raw.data as Record<string, string>).raw).toBe('${ALSO_NOT_DEFINED}');
  });

  it("substitutes a child's spec.path before rendering it", () => {
    expect(ks('infra/cert-manager').path).toBe('./infra/dev/cert-manager');
    expect(ks('infra/cert-manager').repoPath).toBe('infra/dev/cert-manager');
    expect(obj('ConfigMap', 'cert-manager-values')?.owner).toBe('infra/cert-manager');
  });

  it('reports an undefined variable as unresolved-substitution, naming variable, object and file', () => {
    const subs = repo.problems.filter((p) => p.code === 'unresolved-substitution');
    expect(subs).toHaveLength(1);
    expect(subs[0]).toMatchObject({
      severity: 'error',
      file: 'infra/settings.yaml',
      line: 18,
      object: 'ConfigMap/infra/broken',
      cluster: 'dev',
    });
    expect(subs[0]!.message).toContain('NOT_DEFINED_ANYWHERE');
  });

  it('lists external sources without rendering them, keeping their Kustomizations as nodes', () => {
    expect(dev.externalSources).toEqual([
      { ref: { kind: 'GitRepository', name: 'charts', namespace: 'flux-system' }, url: 'https://example.com/other/charts.git', usedBy: ['flux-system/addons'] },
    ]);
    expect(ks('flux-system/addons').repoPath).toBeNull();
    expect(ks('flux-system/addons').expansion).toBe('external-source');
    // Not expanded, and said so: an info (it never fails check) naming the source and why it is not this repository.
    expect(repo.problems.filter((p) => p.code === 'external-source')).toEqual([
      {
        code: 'external-source',
        severity: 'info',
        message:
          'Kustomization flux-system/addons is not expanded: GitRepository flux-system/charts is https://example.com/other/charts.git, ' +
          'another repository than this one (https://example.com/fixtures/flux-rules.git). What it applies is neither in the graph nor checked.',
        file: ks('flux-system/addons').origin.file,
        line: ks('flux-system/addons').origin.line,
        object: 'Kustomization/flux-system/addons',
        cluster: 'dev',
      },
    ]);
    expect(dev.kustomizations.filter((k) => k.key !== 'flux-system/addons').every((k) => k.expansion === 'built')).toBe(true);
  });

  it('renders the self-applying root once (its path is the entry)', () => {
    expect(ks('flux-system/flux-system').repoPath).toBe('clusters/dev');
    expect(dev.kustomizations.filter((k) => k.key === 'flux-system/flux-system')).toHaveLength(1);
  });

  it('keeps each object origin: file relative to the repository root and the line of metadata.name', () => {
    expect(ks('infra/cert-manager').origin).toEqual({ file: 'infra/cert-manager-ks.yaml', line: 4 });
    expect(ks('flux-system/apps').origin).toEqual({ file: 'clusters/dev/tiers.yaml', line: 24 });
    expect(ks('apps/hidden').origin).toEqual({ file: 'apps/.hidden.yaml', line: 5 });
    expect(obj('CustomResourceDefinition', 'widgets.example.com')?.origin).toEqual({ file: 'infra/crds/crd.yaml', line: 4 });
    expect(ks('infra/cert-manager').dependsOn.map((d) => d.line)).toEqual([7, 8]);
  });

  it('reports no other problem', () => {
    expect(repo.problems.map((p) => p.code)).toEqual(['external-source', 'unresolved-substitution']);
  });
});
