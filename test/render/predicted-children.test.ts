import { afterAll, describe, expect, it } from 'vitest';
import { loadRepository } from '../../src/load/load-repository.js';
import { cleanupRepos, cm, gotkSync, ks, makeRepo } from '../helpers/repo-fixtures.js';

afterAll(cleanupRepos);

// One kustomize process slot, so every round of builds is one process: `spawned` counts the rounds.
const load = (root: string) => loadRepository({ repo: root, concurrency: 1, cache: false });
const tiers = 'clusters:\n  dev:\n    path: clusters/dev\n    bootstrap:\n      install: already-running\n      sync: clusters/dev/flux-system\n';

/** A root sync at clusters/dev, a chain a -> b -> c of tiers, and what `extra` adds or replaces. */
function chain(extra: Record<string, string> = {}): string {
  return makeRepo({
    'tiers.yaml': tiers,
    'clusters/dev/flux-system/gotk-sync.yaml': gotkSync('./clusters/dev'),
    'clusters/dev/flux-system/kustomization.yaml': 'resources: [gotk-sync.yaml]\n',
    'clusters/dev/kustomization.yaml': 'resources: [flux-system, tiers.yaml]\n',
    'clusters/dev/tiers.yaml': [ks('a', { path: './tiers/a' }), ks('b', { path: './tiers/b', dependsOn: [{ name: 'a' }] }), ks('c', { path: './tiers/c', dependsOn: [{ name: 'b' }] })].join('---\n'),
    'tiers/a/cm.yaml': cm('a', {}, 'default'),
    'tiers/b/cm.yaml': cm('b', {}, 'default'),
    'tiers/c/cm.yaml': cm('c', {}, 'default'),
    ...extra,
  });
}

const shape = (r: Awaited<ReturnType<typeof load>>) => ({
  kustomizations: r.clusters[0]!.kustomizations.map((k) => `${k.key} ${k.repoPath} [${k.dependsOn.map((d) => d.key).join(',')}]`).sort(),
  objects: r.clusters[0]!.objects.map((o) => `${o.owner ?? '-'} ${o.kind} ${o.namespace ?? ''}/${o.name}`).sort(),
  problems: r.problems.map((p) => `${p.code} ${p.message}`),
});

describe("the tiers' builds start with the entry's when its files say what it applies", () => {
  it('the entry and its three tiers in one kustomize round, with the model of a round per level', async () => {
    const r = await load(chain());
    expect(r.stats.spawned).toBe(1);
    expect(r.stats.builds).toBe(4);
    expect(shape(r)).toEqual({
      kustomizations: [
        'flux-system/a tiers/a []',
        'flux-system/b tiers/b [flux-system/a]',
        'flux-system/c tiers/c [flux-system/b]',
        'flux-system/flux-system clusters/dev []',
      ],
      objects: [
        'flux-system/flux-system GitRepository flux-system/flux-system',
        '- Kustomization flux-system/flux-system',
        'flux-system/a ConfigMap default/a',
        'flux-system/b ConfigMap default/b',
        'flux-system/c ConfigMap default/c',
        'flux-system/flux-system Kustomization flux-system/a',
        'flux-system/flux-system Kustomization flux-system/b',
        'flux-system/flux-system Kustomization flux-system/c',
      ].sort(),
      problems: [],
    });
  });

  it("a tier that applies Kustomizations: its children join the round too, guessed from the guessed tier's files", async () => {
    const r = await load(chain({
      'tiers/c/kustomization.yaml': 'resources: [cm.yaml, apps.yaml]\n',
      'tiers/c/apps.yaml': [ks('app1', { path: './apps/app1' }), ks('app2', { path: './apps/app2' })].join('---\n'),
      'apps/app1/cm.yaml': cm('app1', {}, 'default'),
      'apps/app2/cm.yaml': cm('app2', {}, 'default'),
    }));
    expect(r.stats.spawned).toBe(1);
    expect(r.stats.builds).toBe(6);
    expect(shape(r).objects).toEqual(expect.arrayContaining(['flux-system/app1 ConfigMap default/app1', 'flux-system/app2 ConfigMap default/app2']));
    expect(r.problems).toEqual([]);
  });

  it('not when a patch on the way may change the Kustomizations: built from what kustomize printed, a round later', async () => {
    const patch = 'patches:\n  - target: {kind: Kustomization}\n    patch: |-\n      - op: add\n        path: /spec/targetNamespace\n        value: other\n';
    const r = await load(chain({ 'clusters/dev/kustomization.yaml': `resources: [flux-system, tiers.yaml]\n${patch}` }));
    // The patch reaches the root sync too, so the entry is built again with its overlay (a round of its own), then
    // the tiers: 5 builds, none guessed (a guess would have been a build of each tier without the patch: 8).
    expect(r.stats.spawned).toBe(3);
    expect(r.stats.builds).toBe(5);
    // Every tier is built with the patched targetNamespace.
    expect(shape(r).objects.filter((o) => o.includes('ConfigMap'))).toEqual(['other/a ConfigMap other/a', 'other/b ConfigMap other/b', 'other/c ConfigMap other/c']);
  });

  it('not when the namespace transformer moves them: the sourceRef they read may change with it', async () => {
    const r = await load(chain({ 'clusters/dev/kustomization.yaml': 'namespace: flux-system\nresources: [flux-system, tiers.yaml]\n' }));
    expect(r.stats.spawned).toBe(2);
    expect(shape(r).kustomizations).toHaveLength(4);
  });

  it("not for a child whose spec holds a variable the root's postBuild substitutes; a wrong guess costs a build, never a change", async () => {
    const root = chain({
      'clusters/dev/tiers.yaml': ks('a', { path: './tiers/${TIER}' }),
      'clusters/dev/flux-system/gotk-sync.yaml': `${gotkSync('./clusters/dev')}  postBuild:\n    substitute:\n      TIER: b\n`,
    });
    const r = await load(root);
    expect(r.stats.spawned).toBe(2);
    expect(r.stats.builds).toBe(2);
    expect(shape(r).kustomizations).toEqual(['flux-system/a tiers/b []', 'flux-system/flux-system clusters/dev []']);
    expect(shape(r).objects).toContain('flux-system/a ConfigMap default/b');
  });
});
