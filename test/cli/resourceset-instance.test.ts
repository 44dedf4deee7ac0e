// A FluxInstance that is itself a resource of a ResourceSet (test/fixtures/repo/resourceset-instance): discovery
// and --path find each cluster as from a written FluxInstance, including a flux-instance HelmRelease whose values
// come from a ConfigMap the same ResourceSet generates; a ResourceSet that cannot be expanded offline is named.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupRepos, fixture, makeRepo } from '../helpers/repo-fixtures.js';
import { cli } from './run.js';

afterAll(cleanupRepos);

const REPO = 'test/fixtures/repo/resourceset-instance';

interface PlanJson {
  clusters: { name: string; entry: string; kustomizations: { key: string; source: string; expanded: boolean }[] }[];
}

describe('a FluxInstance inside a ResourceSet', () => {
  it('discovery finds both clusters, each tier read from this repository (its source as the FluxInstance names it)', async () => {
    const r = await cli('plan', '--repo', REPO, '-o', 'json');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const c = (JSON.parse(r.stdout) as PlanJson).clusters;
    expect(c.map((x) => [x.name, x.entry, x.kustomizations.map((k) => [k.key, k.source, k.expanded])])).toEqual([
      ['homelab', 'clusters/homelab', [['flux-system/apps', 'GitRepository/flux-system/flux-system', true]]],
      ['lab', 'clusters/lab', [['flux-system/apps', 'GitRepository/flux-system/home', true]]],
    ]);
  });

  it('--path ENTRY: the same cluster, its source found, nothing assumed', async () => {
    const all = JSON.parse((await cli('plan', '--repo', REPO, '-o', 'json')).stdout) as PlanJson;
    for (const c of all.clusters) {
      const one = await cli('plan', '--repo', REPO, '--path', c.entry, '-o', 'json');
      expect(one.stderr).toBe('');
      expect(JSON.parse(one.stdout)).toEqual({ clusters: [c] });
    }
  });

  it('a ResourceSet whose FluxInstance needs a provider read at run time: a warning naming it and the tiers.yaml key', async () => {
    const text = readFileSync(path.join(fixture('resourceset-instance'), 'clusters/homelab/flux-system/flux.yaml'), 'utf8').replace(
      '  inputs:\n    - cluster: homelab\n      version: "2.x"\n',
      '  inputsFrom:\n    - name: branches\n',
    );
    const provider = 'apiVersion: fluxcd.controlplane.io/v1\nkind: ResourceSetInputProvider\nmetadata:\n  name: branches\n  namespace: flux-system\nspec:\n  type: GitHubBranch\n  url: https://github.com/example/home\n';
    const root = makeRepo({ 'clusters/homelab/flux-system/flux.yaml': text, 'clusters/homelab/flux-system/provider.yaml': provider, 'clusters/homelab/apps.yaml': 'x: 1\n' });
    const r = await cli('plan', '--repo', root);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      'clusters/homelab/flux-system/flux.yaml:4: ResourceSet/flux-system/flux generates a FluxInstance but does not expand offline (its ResourceSetInputProvider ' +
        'flux-system/branches (type GitHubBranch) exports inputs only at run time; set resourceSetInputs in tiers.yaml), so the cluster it syncs is not known',
    );
  });
});
