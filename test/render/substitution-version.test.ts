// kustomize-controller substitutes strictly by default only since v1.9.0 (Flux 2.9): an older Flux the repository
// installs leaves an undefined ${var} empty instead of failing the tier, and a --feature-gates argument turns it
// either way. Each finding says whose semantics were applied.
import { afterAll, describe, expect, it } from 'vitest';
import { loadRepository } from '../../src/load/load-repository.js';
import { cleanupRepos, devTiers, ks, makeRepo } from '../helpers/repo-fixtures.js';

afterAll(cleanupRepos);

const controller = (tag: string, args: string[] = []) =>
  `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: kustomize-controller\n  namespace: flux-system\nspec:\n  template:\n    spec:\n      containers:\n        - name: manager\n          image: ghcr.io/fluxcd/kustomize-controller:${tag}\n` +
  (args.length ? `          args: ${JSON.stringify(args)}\n` : '');

const repo = (install: string | null) =>
  makeRepo({
    'tiers.yaml': devTiers,
    ...(install ? { 'clusters/dev/gotk-components.yaml': install } : {}),
    'clusters/dev/apps.yaml': ks('apps', { path: './apps', postBuild: { substitute: { DOMAIN: 'example.com' } } }),
    'apps/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\n  namespace: default\ndata:\n  host: "app.${DOMAIN}"\n  zone: "${ZONE}"\n',
  });

const subst = async (dir: string) => {
  const r = await loadRepository({ repo: dir });
  const cm = r.clusters[0]!.objects.find((o) => o.name === 'app')!.raw as { data: Record<string, string> };
  return { problems: r.problems.filter((p) => p.code === 'unresolved-substitution'), data: cm.data };
};

describe('postBuild substitution follows the Flux the cluster installs', () => {
  it('Flux 2.8 (kustomize-controller v1.8.x): an undefined variable becomes empty, one info naming the version', async () => {
    const { problems, data } = await subst(repo(controller('v1.8.2')));
    expect(problems.map((p) => p.severity)).toEqual(['info']);
    expect(problems[0]!.message).toContain('ZONE');
    expect(problems[0]!.message).toContain('Flux 2.8 (clusters/dev/gotk-components.yaml:');
    expect(problems[0]!.object).toBe('Kustomization/flux-system/apps');
    // kustomize prints the value unquoted, so the emptied `zone: ${ZONE}` reads as null, as in kustomize-controller.
    expect(data).toEqual({ host: 'app.example.com', zone: null });
  });

  it('Flux 2.9: strict, an error on the object that says so', async () => {
    const { problems, data } = await subst(repo(controller('v1.9.4')));
    expect(problems.map((p) => p.severity)).toEqual(['error']);
    expect(problems[0]!.message).toContain('Flux 2.9 (clusters/dev/gotk-components.yaml:');
    expect(problems[0]!.object).toBe('ConfigMap/default/app');
    expect(data.zone).toBe('${ZONE}');
  });

  it('no install in the repository: the newest Flux is assumed, and the message says so', async () => {
    const { problems } = await subst(repo(null));
    expect(problems.map((p) => p.severity)).toEqual(['error']);
    expect(problems[0]!.message).toContain('assumed');
  });

  it('a feature gate wins over the default of either version', async () => {
    const off = await subst(repo(controller('v1.9.4', ['--feature-gates=StrictPostBuildSubstitutions=false'])));
    expect(off.problems.map((p) => p.severity)).toEqual(['info']);
    expect(off.problems[0]!.message).toContain('StrictPostBuildSubstitutions=false');
    const on = await subst(repo(controller('v1.8.2', ['--feature-gates=StrictPostBuildSubstitutions=true'])));
    expect(on.problems.map((p) => p.severity)).toEqual(['error']);
  });

  it('a FluxInstance pinning 2.7 applies 2.7 semantics', async () => {
    const fi = 'apiVersion: fluxcd.controlplane.io/v1\nkind: FluxInstance\nmetadata:\n  name: flux\n  namespace: flux-system\nspec:\n  distribution:\n    version: "2.7.x"\n    registry: ghcr.io/fluxcd\n';
    const { problems } = await subst(repo(fi));
    expect(problems.map((p) => p.severity)).toEqual(['info']);
    expect(problems[0]!.message).toContain('Flux 2.7');
  });
});
