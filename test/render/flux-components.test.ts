// kustomize-controller merges a Kustomization's fields into the kustomization file of its path (fluxcd/pkg
// kustomize Generator.GenerateManifest), it does not layer them over it: a path whose kustomization is a
// `kind: Component` builds, spec.components are applied before that file's own patches, and spec.namePrefix replaces
// the file's. Each case here failed (or built something else) when standup built the path as a resource of an overlay.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadRepository } from '../../src/load/load-repository.js';
import { writeOverlay } from '../../src/render/flux-overlay.js';
import { cleanupRepos, devTiers, ks, makeRepo } from '../helpers/repo-fixtures.js';

afterAll(cleanupRepos);

const cm = (name: string, ns = 'default') => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: ${ns}\ndata:\n  a: b\n`;

describe("a path's kustomization gets Flux's fields merged in, as kustomize-controller does", () => {
  it('a path whose kustomization.yaml is a kind: Component builds (no "expected kind != Component")', async () => {
    const repo = makeRepo({
      'tiers.yaml': devTiers,
      'clusters/dev/apps.yaml': ks('apps', { path: './apps/shared', targetNamespace: 'apps' }),
      'apps/shared/kustomization.yaml': 'apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nresources: [cm.yaml]\n',
      'apps/shared/cm.yaml': cm('shared'),
    });
    const r = await loadRepository({ repo });
    expect(r.problems).toEqual([]);
    const o = r.clusters[0]!.objects.find((x) => x.name === 'shared')!;
    expect(o.namespace).toBe('apps');
    expect(o.origin.file).toBe('apps/shared/cm.yaml');
    expect(r.clusters[0]!.kustomizations.find((k) => k.key === 'flux-system/apps')!.expansion).toBe('built');
  });

  it("the path's own patches see the objects spec.components add", async () => {
    const repo = makeRepo({
      'tiers.yaml': devTiers,
      'clusters/dev/apps.yaml': ks('apps', { path: './apps/app', components: ['../../components/extra'] }),
      'apps/app/kustomization.yaml':
        'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [cm.yaml]\n' +
        'patches:\n  - target: {kind: ConfigMap, name: extra}\n    patch: |\n      - op: add\n        path: /data/patched\n        value: "yes"\n',
      'apps/app/cm.yaml': cm('app'),
      'components/extra/kustomization.yaml': 'apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nresources: [extra.yaml]\n',
      'components/extra/extra.yaml': cm('extra'),
    });
    const r = await loadRepository({ repo });
    expect(r.problems).toEqual([]);
    const extra = r.clusters[0]!.objects.find((x) => x.name === 'extra')!;
    expect((extra.raw as { data: Record<string, string> }).data.patched).toBe('yes');
    expect(extra.origin.file).toBe('components/extra/extra.yaml');
  });

  it("spec.namePrefix replaces the file's namePrefix; a generated ConfigMap's origin is the path's kustomization file", async () => {
    const repo = makeRepo({
      'tiers.yaml': devTiers,
      'clusters/dev/apps.yaml': ks('apps', { path: './apps', namePrefix: 'flux-' }),
      'apps/kustomization.yaml':
        'namePrefix: own-\nresources: [cm.yaml]\nconfigMapGenerator:\n  - name: gen\n    files: [conf/settings.txt]\ngeneratorOptions:\n  disableNameSuffixHash: true\n',
      'apps/cm.yaml': cm('app'),
      'apps/conf/settings.txt': 'x=1\n',
    });
    const r = await loadRepository({ repo });
    expect(r.problems).toEqual([]);
    const names = r.clusters[0]!.objects.filter((o) => o.kind === 'ConfigMap').map((o) => o.name).sort();
    expect(names).toEqual(['flux-app', 'flux-gen']);
    const gen = r.clusters[0]!.objects.find((o) => o.name === 'flux-gen')!;
    expect(gen.origin.file).toBe('apps/kustomization.yaml');
    expect((gen.raw as { data: Record<string, string> }).data['settings.txt']).toBe('x=1\n');
  });

  it('the merged file builds with the real kustomize exactly as the same file merged in place does', () => {
    // The in-place form is what kustomize-controller builds; standup writes it elsewhere with its references moved.
    const repo = makeRepo({
      'apps/kustomization.yaml':
        'resources: [cm.yaml, ../base]\npatches:\n  - path: patch.yaml\nconfigMapGenerator:\n  - name: gen\n    files: [k=conf/s.txt]\n    envs: [conf/e.env]\n' +
        'generatorOptions:\n  disableNameSuffixHash: true\nimages:\n  - {name: nginx, newTag: "1.0"}\n',
      'apps/cm.yaml': cm('app'),
      'apps/patch.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n  namespace: default\ndata:\n  p: q\n',
      'apps/conf/s.txt': 's\n',
      'apps/conf/e.env': 'E=1\n',
      'base/kustomization.yaml': 'resources: [d.yaml]\n',
      'base/d.yaml': 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\n  namespace: default\nspec:\n  template:\n    spec:\n      containers: [{name: c, image: nginx}]\n',
    });
    const overlay = { namePrefix: 'p-', images: [{ name: 'nginx', newTag: '2.0' }], components: [] };
    const elsewhere = mkdtempSync(path.join(tmpdir(), 'standup-merged-'));
    writeOverlay(elsewhere, path.join(repo, 'apps'), overlay);
    const build = (dir: string) => execFileSync('kubectl', ['kustomize', dir, '--load-restrictor', 'LoadRestrictionsNone'], { encoding: 'utf8' }).replace(/\n\s+config\.kubernetes\.io\/origin: \|[\s\S]*?(?=\n\S|\n  [a-z])/g, '');
    const merged = readFileSync(path.join(elsewhere, 'kustomization.yaml'), 'utf8');
    // The same document, references back as written: the in-place form.
    const inPlace = JSON.parse(merged) as Record<string, unknown>;
    const back = (s: string) => path.relative(path.join(repo, 'apps'), path.resolve(elsewhere, s)) || '.';
    inPlace.resources = (inPlace.resources as string[]).map(back);
    inPlace.patches = (inPlace.patches as { path: string }[]).map((p) => ({ ...p, path: back(p.path) }));
    inPlace.configMapGenerator = [{ name: 'gen', files: ['k=conf/s.txt'], envs: ['conf/e.env'] }];
    writeFileSync(path.join(repo, 'apps/kustomization.yaml'), JSON.stringify(inPlace));
    expect(build(elsewhere)).toBe(build(path.join(repo, 'apps')));
    expect(build(elsewhere)).toContain('image: nginx:2.0');
    expect(build(elsewhere)).toContain('name: p-app');
  });
});
