// A FluxInstance syncing an OCI artifact pushed from a sub-folder (test/fixtures/repo/oci-artifact: `flux push
// artifact --path=./kubernetes`, sync path clusters/prod): discovery and --path find the entry inside that folder
// and say why on stderr; tiers.yaml sourceRoot says it outright; what cannot be placed is named with why.
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupRepos, fixture, makeRepo } from '../helpers/repo-fixtures.js';
import { cli } from './run.js';

afterAll(cleanupRepos);

const NOTE =
  '! cluster prod: FluxInstance flux-system/flux (kubernetes/clusters/prod/flux-system/flux-instance.yaml) syncs ./clusters/prod from OCIRepository ' +
  'flux-system/flux-system (oci://registry.example.com/fleet), an artifact pushed from a folder of this repository: only kubernetes/ holds ' +
  'clusters/prod, so its paths are read from kubernetes/ (set sourceRoot: kubernetes for the cluster in tiers.yaml to say so)\n';

interface PlanJson {
  clusters: { name: string; entry: string; kustomizations: { key: string; dependsOn: string[]; expanded: boolean }[] }[];
}

/** The fixture copied into a temp repository, to change it. */
function copy(): string {
  const root = makeRepo({});
  cpSync(fixture('oci-artifact'), root, { recursive: true });
  return root;
}

const expectGraph = (stdout: string) => {
  const c = (JSON.parse(stdout) as PlanJson).clusters;
  expect(c.map((x) => [x.name, x.entry])).toEqual([['prod', 'kubernetes/clusters/prod']]);
  expect(c[0]!.kustomizations.map((k) => [k.key, k.dependsOn, k.expanded])).toEqual([
    ['flux-system/infrastructure', [], true],
    ['flux-system/apps', ['flux-system/infrastructure'], true],
  ]);
};

describe('an OCI artifact pushed from a sub-folder', () => {
  it('discovery finds the entry inside the folder, reads every tier, and says which folder and why on stderr', async () => {
    const r = await cli('plan', '--repo', fixture('oci-artifact'), '-o', 'json');
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(NOTE);
    expectGraph(r.stdout);
  });

  it('--path to that entry: the same, with or without --source', async () => {
    const r = await cli('plan', '--repo', fixture('oci-artifact'), '--path', 'kubernetes/clusters/prod', '-o', 'json');
    expect(r.stderr).toBe(NOTE);
    expectGraph(r.stdout);
    const s = await cli('plan', '--repo', fixture('oci-artifact'), '--path', 'kubernetes/clusters/prod', '--source', 'OCIRepository/flux-system/flux-system', '-o', 'json');
    expect(s.stderr).toBe(NOTE);
    expectGraph(s.stdout);
  });

  it('tiers.yaml sourceRoot says it: nothing on stderr', async () => {
    const root = copy();
    writeFileSync(path.join(root, 'tiers.yaml'), 'clusters:\n  prod:\n    path: kubernetes/clusters/prod\n    sourceRoot: kubernetes\n');
    const r = await cli('plan', '--repo', root, '-o', 'json');
    expect(r.stderr).toBe('');
    expectGraph(r.stdout);
  });

  it('no FluxInstance in the repository, --path and --source: the root inferred from the tiers, said on stderr', async () => {
    const root = copy();
    rmSync(path.join(root, 'kubernetes/clusters/prod/flux-system'), { recursive: true });
    const r = await cli('plan', '--repo', root, '--path', 'kubernetes/clusters/prod', '--source', 'OCIRepository/flux-system/flux-system', '-o', 'json');
    expect(r.stderr).toContain('! cluster prod: OCIRepository flux-system/flux-system is an artifact whose paths are not folders of the repository root; only kubernetes/ above the entry holds');
    expectGraph(r.stdout);
  });

  it('two folders that hold the sync path: no guess, the FluxInstance and why named (exit 2, no clusters)', async () => {
    const root = copy();
    mkdirSync(path.join(root, 'old/clusters/prod'), { recursive: true });
    writeFileSync(path.join(root, 'old/clusters/prod/cm.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  namespace: default\n');
    const r = await cli('plan', '--repo', root);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      'kubernetes/clusters/prod/flux-system/flux-instance.yaml: FluxInstance flux-system/flux syncs path "clusters/prod" from OCIRepository flux-system/flux-system ' +
        '(oci://registry.example.com/fleet), an artifact whose root is a folder of this repository, but 2 folders hold it (kubernetes/clusters/prod, old/clusters/prod)',
    );
  });

  it('a Git sync whose path is not a folder here: named, not taken for a cluster', async () => {
    const root = copy();
    const file = path.join(root, 'kubernetes/clusters/prod/flux-system/flux-instance.yaml');
    writeFileSync(file, (await import('node:fs')).readFileSync(path.join(fixture('oci-artifact'), 'kubernetes/clusters/prod/flux-system/flux-instance.yaml'), 'utf8').replace('kind: OCIRepository', 'kind: GitRepository'));
    const r = await cli('plan', '--repo', root);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('FluxInstance flux-system/flux syncs path "clusters/prod" from GitRepository flux-system/flux-system (oci://registry.example.com/fleet), which is not a folder of this repository');
  });
});
