import { afterAll, describe, expect, it } from 'vitest';
import { loadRepository } from '../../src/load/load-repository.js';
import { cleanupRepos, ks, makeRepo } from '../helpers/repo-fixtures.js';

afterAll(cleanupRepos);

// gotk-sync's root Kustomization reconciles the entry path; kustomize-controller builds that path with the root's
// own spec (patches here), as it does for any Kustomization.
const rootSync = (patches: string) =>
  `apiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata:\n  name: flux-system\n  namespace: flux-system\nspec:\n  url: https://example.com/repo.git\n---\n` +
  `apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: flux-system\n  namespace: flux-system\nspec:\n  interval: 10m\n  path: ./clusters/dev\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n${patches}`;

const patches = `  patches:
    - target:
        kind: Kustomization
        labelSelector: tier=app
      patch: |
        - op: add
          path: /spec/dependsOn
          value: [{name: infra}]
`;

const files = (sync: string) => ({
  'clusters/dev/flux-system/gotk-sync.yaml': sync,
  'clusters/dev/infra.yaml': ks('infra', { path: './infra' }),
  'clusters/dev/apps.yaml': ks('apps', { path: './apps' }).replace('  name: apps\n', '  name: apps\n  labels:\n    tier: app\n'),
  'infra/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: i\n  namespace: default\n',
  'apps/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: default\n',
});

describe("the root sync's own spec applies to the entry build", () => {
  it("its patches reach the child Kustomizations (a dependsOn added by the root's patch)", async () => {
    for (const scope of ['all', 'graph'] as const) {
      const r = await loadRepository({ repo: makeRepo(files(rootSync(patches))), scope });
      const apps = r.clusters[0]!.kustomizations.find((k) => k.key === 'flux-system/apps')!;
      expect(apps.dependsOn.map((d) => d.key), scope).toEqual(['flux-system/infra']);
      expect(r.problems).toEqual([]);
    }
  });

  it('without patches the entry is built once, and the child has no dependsOn', async () => {
    const r = await loadRepository({ repo: makeRepo(files(rootSync(''))) });
    expect(r.clusters[0]!.kustomizations.find((k) => k.key === 'flux-system/apps')!.dependsOn).toEqual([]);
  });

  it('a root patch that breaks the build is a build-failed problem on the root Kustomization', async () => {
    const bad = `  patches:\n    - target:\n        kind: Kustomization\n      patch: |\n        - op: replace\n          path: /spec/nothing/here\n          value: 1\n`;
    const r = await loadRepository({ repo: makeRepo(files(rootSync(bad))) });
    expect(r.problems.map((p) => [p.code, p.object])).toEqual([['build-failed', 'Kustomization/flux-system/flux-system']]);
    expect(r.problems[0]!.file).toBe('clusters/dev/flux-system/gotk-sync.yaml');
  });
});
