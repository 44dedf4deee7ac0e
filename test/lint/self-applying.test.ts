// A Kustomization whose spec.path builds the file that defines it is applied twice, by its parent and by itself:
// one definition, so `duplicate` says that (a warning at that file), not "defined twice: here and at" the same line.
import { afterAll, describe, expect, it } from 'vitest';
import { lint } from '../../src/lint/index.js';
import { loadRepository } from '../../src/load/load-repository.js';
import { planCluster } from '../../src/plan/plan.js';
import { cleanupRepos, cm, devTiers, ks, makeRepo } from '../helpers/repo-fixtures.js';

afterAll(cleanupRepos);

async function duplicates(files: Record<string, string>) {
  const r = await loadRepository({ repo: makeRepo({ 'tiers.yaml': devTiers, ...files }) });
  return lint({ clusters: r.clusters.map((c) => planCluster(c)), config: r.config }).filter((p) => p.code === 'duplicate');
}

describe('duplicate: a Kustomization that re-applies its own file', () => {
  it('is reported as applying itself, once, as a warning at its own file', async () => {
    const found = await duplicates({
      'clusters/dev/kustomization.yaml': 'resources: [infra/ks.yaml]\n',
      'clusters/dev/infra/kustomization.yaml': 'resources: [ks.yaml, cm.yaml]\n',
      'clusters/dev/infra/ks.yaml': ks('infra', { path: './clusters/dev/infra' }),
      'clusters/dev/infra/cm.yaml': cm('settings', {}, 'default'),
    });
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ severity: 'warning', file: 'clusters/dev/infra/ks.yaml', object: 'Kustomization/flux-system/infra' });
    expect(found[0]!.message).toContain('applies its own file');
    expect(found[0]!.message).not.toContain('defined twice');
  });

  it('two files defining one name are still an error naming the other file', async () => {
    const found = await duplicates({
      'clusters/dev/a.yaml': ks('infra', { path: './infra/a' }),
      'clusters/dev/other.yaml': ks('other', { path: './other' }),
      'other/b.yaml': ks('infra', { path: './infra/b' }),
      'infra/a/cm.yaml': cm('a', {}, 'default'),
      'infra/b/cm.yaml': cm('b', {}, 'default'),
    });
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ severity: 'error' });
    expect(found[0]!.message).toMatch(/defined twice: here and at (clusters\/dev\/a|other\/b)\.yaml:\d+;/);
  });
});
