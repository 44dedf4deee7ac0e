// flux-operator ResourceSets read whole: test/fixtures/repo/resourceset-fleet (written from flux-operator's docs and
// code) expanded into the Kustomizations the operator would create, with their dependsOn and the ResourceSets'
// own dependsOn as edges; what cannot be expanded (a provider read at run time, a template that does not render, a
// dependency nothing defines) said with the ResourceSet's file:line.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupRepos, fixture, makeRepo } from '../helpers/repo-fixtures.js';
import { cli } from './run.js';

afterAll(cleanupRepos);

const FLEET = 'test/fixtures/repo/resourceset-fleet';

interface PlanJson {
  clusters: {
    tiers: string[];
    levels: string[][];
    kustomizations: { key: string; path: string; dependsOn: string[]; parent: string | null; level: number | null; file: string; generatedBy?: string; line?: number }[];
    resourceSets?: { key: string; level: number | null; expansion: string; inputSets: number | null; providers: string[]; generated: string[]; dependsOn: { kind: string; name: string; tier: string | null; resolved: string }[] }[];
  }[];
}

/** The fleet's files (tiers.yaml aside), to vary one of them in a temp repository. */
function fleetFiles(): Record<string, string> {
  const files: Record<string, string> = {};
  for (const rel of [
    'clusters/staging/flux-system/flux-instance.yaml',
    'clusters/staging/infra.yaml',
    'clusters/staging/issuers.yaml',
    'clusters/staging/apps.yaml',
    'infrastructure/cert-manager/crds.yaml',
    'infrastructure/monitoring/cm.yaml',
    'infrastructure/cert-issuers/issuer.yaml',
    'apps/podinfo/cm.yaml',
    'apps/preview/cm.yaml',
  ]) {
    files[rel] = readFileSync(path.join(fixture('resourceset-fleet'), rel), 'utf8');
  }
  return files;
}

describe('a ResourceSet fleet', () => {
  it('plan -o json: every Kustomization the operator would create, generated at the ResourceSet file:line, with the edges (golden)', async () => {
    const r = await cli('plan', '--repo', FLEET, '-o', 'json');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const c = (JSON.parse(r.stdout) as PlanJson).clusters[0]!;
    // flux-operator build rset (v0.58.1) on each ResourceSet gives these names, paths and dependsOn.
    expect(c.kustomizations.map((k) => [k.key, k.path, k.dependsOn, k.generatedBy, `${k.file}:${k.line}`])).toEqual([
      ['flux-system/infra-cert-manager', './infrastructure/cert-manager', [], 'ResourceSet/flux-system/infra', 'clusters/staging/infra.yaml:4'],
      ['flux-system/infra-monitoring', './infrastructure/monitoring', [], 'ResourceSet/flux-system/infra', 'clusters/staging/infra.yaml:4'],
      ['flux-system/podinfo', './apps/podinfo', ['flux-system/infra-monitoring'], 'ResourceSet/flux-system/apps', 'clusters/staging/apps.yaml:30'],
      ['flux-system/preview-pr-42', './apps/preview', ['flux-system/infra-monitoring'], 'ResourceSet/flux-system/apps', 'clusters/staging/apps.yaml:30'],
      ['flux-system/cert-issuers', './infrastructure/cert-issuers', [], 'ResourceSet/flux-system/issuers', 'clusters/staging/issuers.yaml:4'],
    ]);
    const rs = new Map(c.resourceSets!.map((x) => [x.key, x]));
    // issuers waits for a CRD that a leaf tier applies: the leaf is read even under plan's graph-only scope.
    expect(rs.get('ResourceSet/flux-system/issuers')!.dependsOn).toEqual([expect.objectContaining({ kind: 'CustomResourceDefinition', tier: 'flux-system/infra-cert-manager', resolved: 'tier' })]);
    expect(rs.get('ResourceSet/flux-system/apps')!.dependsOn).toEqual([expect.objectContaining({ kind: 'ResourceSet', tier: 'ResourceSet/flux-system/infra', resolved: 'tier' })]);
    // Providers in name order; the GitHubPullRequest one from tiers.yaml resourceSetInputs.
    expect(rs.get('ResourceSet/flux-system/apps')).toMatchObject({ expansion: 'built', inputSets: 2, providers: ['flux-system/previews', 'flux-system/team-defaults'] });
    // What a ResourceSet generates comes after it (it exists only once the ResourceSet reconciled, after its dependsOn).
    expect(c.levels).toEqual([
      ['ResourceSet/flux-system/infra'],
      ['ResourceSet/flux-system/apps', 'flux-system/infra-cert-manager', 'flux-system/infra-monitoring'],
      ['ResourceSet/flux-system/issuers', 'flux-system/podinfo', 'flux-system/preview-pr-42'],
      ['flux-system/cert-issuers'],
    ]);
    expect(c.tiers).toEqual(['flux-system/infra-cert-manager', 'flux-system/infra-monitoring', 'flux-system/podinfo', 'flux-system/preview-pr-42', 'flux-system/cert-issuers']);
    await expect(r.stdout).toMatchFileSnapshot('golden/plan-resourceset-fleet.json');
  });

  it('graph: ResourceSets are nodes, their Kustomizations drawn under them', async () => {
    const r = await cli('graph', '--repo', FLEET);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        'staging (clusters/staging)',
        '├── [0] infra (ResourceSet)',
        '│   ├── [1] infra-cert-manager',
        '│   └── [1] infra-monitoring',
        '├── [1] apps (ResourceSet)  <- infra (ResourceSet)',
        '│   ├── [2] podinfo  <- infra-monitoring',
        '│   └── [2] preview-pr-42  <- infra-monitoring',
        '└── [2] issuers (ResourceSet)  <- infra-cert-manager',
        '    └── [3] cert-issuers',
        '',
      ].join('\n'),
    );
    const json = JSON.parse((await cli('graph', '--repo', FLEET, '-o', 'json')).stdout) as { clusters: { nodes: { key: string; kind?: string }[]; edges: { from: string; to: string; kind: string }[] }[] };
    const c = json.clusters[0]!;
    expect(c.nodes.filter((n) => n.kind === 'ResourceSet').map((n) => n.key)).toEqual(['ResourceSet/flux-system/infra', 'ResourceSet/flux-system/apps', 'ResourceSet/flux-system/issuers']);
    expect(c.edges).toContainEqual({ from: 'ResourceSet/flux-system/issuers', to: 'flux-system/infra-cert-manager', kind: 'dependsOn' });
    expect(c.edges).toContainEqual({ from: 'ResourceSet/flux-system/apps', to: 'flux-system/podinfo', kind: 'nesting' });
  });

  it('check evaluates every generated Kustomization and finds no error', async () => {
    const r = await cli('check', '--repo', FLEET, '-o', 'json');
    expect(r.code).toBe(0);
    const problems = (JSON.parse(r.stdout) as { problems: { code: string; severity: string }[] }).problems;
    expect(problems.filter((p) => p.severity === 'error')).toEqual([]);
  });
});

describe('what a ResourceSet cannot expand is said, with its file:line', () => {
  it('a provider read at run time without tiers.yaml inputs: an input-provider info naming the key; plan says so on stderr', async () => {
    const root = makeRepo(fleetFiles());
    const plan = await cli('plan', '--repo', root);
    expect(plan.code).toBe(0);
    expect(plan.stderr).toBe('! 1 ResourceSet not expanded (flux-system/apps: input provider not readable offline); run `standup check` for why\n');
    const r = await cli('check', '--repo', root, '-o', 'json');
    expect(r.code).toBe(0);
    const p = (JSON.parse(r.stdout) as { problems: { code: string; severity: string; file: string; line: number; message: string }[] }).problems;
    expect(p).toEqual([
      expect.objectContaining({ code: 'input-provider', severity: 'info', file: 'clusters/staging/apps.yaml', line: 30, message: expect.stringContaining('resourceSetInputs."flux-system/previews" in tiers.yaml') }),
    ]);
  });

  it('a template that does not render: build-failed at the ResourceSet, in Go template words, exit 2', async () => {
    const files = fleetFiles();
    files['clusters/staging/infra.yaml'] = files['clusters/staging/infra.yaml']!.replace('infra-<< inputs.component >>', 'infra-<< inputs.nosuch >>');
    files['clusters/staging/issuers.yaml'] = files['clusters/staging/issuers.yaml']!.replace('name: cert-issuers', 'name: << nosuch "x" >>');
    files['tiers.yaml'] = readFileSync(path.join(fixture('resourceset-fleet'), 'tiers.yaml'), 'utf8');
    const root = makeRepo(files);
    const r = await cli('check', '--repo', root);
    expect(r.code).toBe(2);
    expect(r.stdout).toContain(
      'clusters/staging/infra.yaml:4  error build-failed  ResourceSet/flux-system/infra\n' +
        '  ResourceSet/flux-system/infra does not build, so nothing it would apply is in the graph; flux-operator would stall it (BuildFailed): build failed: failed to build resources: ' +
        'failed to execute multi-doc YAML template: template: resourceset:4:17: executing "resourceset" at <inputs>: map has no entry for key "nosuch"',
    );
    expect(r.stdout).toContain('clusters/staging/issuers.yaml:4  error build-failed  ResourceSet/flux-system/issuers');
    expect(r.stdout).toContain('build failed: failed to build resource: failed to parse template: template: resourceset:4: function "nosuch" not defined');
  });

  it('a dependsOn nothing defines, or without a namespace: missing-dependency at the dependsOn line', async () => {
    const files = fleetFiles();
    files['clusters/staging/apps.yaml'] = files['clusters/staging/apps.yaml']!.replace('      name: infra\n      namespace: flux-system\n', '      name: infra-typo\n      namespace: flux-system\n');
    files['clusters/staging/issuers.yaml'] = files['clusters/staging/issuers.yaml']!.replace(
      '      ready: true\n',
      '      ready: true\n    - apiVersion: v1\n      kind: ConfigMap\n      name: gate\n',
    );
    files['infrastructure/monitoring/gate.yaml'] = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: gate\n  namespace: default\n';
    files['tiers.yaml'] = readFileSync(path.join(fixture('resourceset-fleet'), 'tiers.yaml'), 'utf8');
    const root = makeRepo(files);
    const r = await cli('check', '--repo', root, '-o', 'json');
    expect(r.code).toBe(2);
    const p = (JSON.parse(r.stdout) as { problems: { code: string; severity: string; file: string; line: number; message: string }[] }).problems.filter((x) => x.code === 'missing-dependency');
    expect(p.map((x) => [x.severity, `${x.file}:${x.line}`])).toEqual([
      ['error', 'clusters/staging/apps.yaml:36'],
      ['error', 'clusters/staging/issuers.yaml:14'],
    ]);
    expect(p[0]!.message).toContain('depends on ResourceSet/flux-system/infra-typo, which cluster staging does not define');
    expect(p[1]!.message).toContain('depends on v1/ConfigMap/gate without a namespace');
  });

  it('diff: a ResourceSet removed, with its dependsOn edge, between two clusters', async () => {
    const files = fleetFiles();
    for (const [rel, text] of Object.entries(fleetFiles())) {
      if (!rel.startsWith('clusters/staging/') || rel.endsWith('issuers.yaml')) continue;
      files[rel.replace('clusters/staging/', 'clusters/prod/')] = text.replace('path: clusters/staging', 'path: clusters/prod');
    }
    files['tiers.yaml'] = readFileSync(path.join(fixture('resourceset-fleet'), 'tiers.yaml'), 'utf8');
    const root = makeRepo(files);
    const r = await cli('diff', '--repo', root, '--cluster', 'staging', '--cluster', 'prod', '-o', 'json');
    expect(r.code).toBe(0);
    const d = (JSON.parse(r.stdout) as { diffs: { tiersRemoved: string[]; resourceSetsAdded: string[]; resourceSetsRemoved: string[]; edgesRemoved: { from: string; to: string }[] }[] }).diffs[0]!;
    expect(d.resourceSetsRemoved).toEqual(['ResourceSet/flux-system/issuers']);
    expect(d.resourceSetsAdded).toEqual([]);
    expect(d.tiersRemoved).toEqual(['flux-system/cert-issuers']);
    expect(d.edgesRemoved).toContainEqual({ from: 'ResourceSet/flux-system/issuers', to: 'flux-system/infra-cert-manager' });
    const text = await cli('diff', '--repo', root, '--cluster', 'staging', '--cluster', 'prod');
    expect(text.stdout).toContain('- ResourceSet/flux-system/issuers\n');
  });

  it('runtime-crd sees generated objects: the ResourceSet dependsOn on the CRD orders them; without it, a race', async () => {
    const ordered = await cli('check', '--repo', FLEET, '-o', 'json');
    expect((JSON.parse(ordered.stdout) as { problems: { code: string }[] }).problems.filter((p) => p.code === 'runtime-crd')).toEqual([]);
    const files = fleetFiles();
    const issuers = files['clusters/staging/issuers.yaml']!;
    files['clusters/staging/issuers.yaml'] = issuers.slice(0, issuers.indexOf('  dependsOn:')) + issuers.slice(issuers.indexOf('  resources:'));
    files['tiers.yaml'] = readFileSync(path.join(fixture('resourceset-fleet'), 'tiers.yaml'), 'utf8');
    const r = await cli('check', '--repo', makeRepo(files), '-o', 'json');
    const race = (JSON.parse(r.stdout) as { problems: { code: string; severity: string; object: string; message: string }[] }).problems.filter((p) => p.code === 'runtime-crd');
    expect(race).toEqual([expect.objectContaining({ severity: 'warning', object: 'ClusterIssuer/selfsigned', message: expect.stringContaining('applied by flux-system/infra-cert-manager, which flux-system/cert-issuers does not depend on') })]);
  });

  it('plan text: the ResourceSets under the Kustomizations, with the tier each dependsOn waits for', async () => {
    const r = await cli('plan', '--repo', FLEET);
    expect(r.stdout).toContain('TIER_ORDER=(infra-cert-manager infra-monitoring podinfo preview-pr-42 cert-issuers)');
    expect(r.stdout).toMatch(/LEVEL +RESOURCESET +DEPENDS ON +GENERATES\n0 +flux-system\/infra +- +2 objects\n1 +flux-system\/apps +ResourceSet\/flux-system\/infra +2 objects\n2 +flux-system\/issuers +CustomResourceDefinition\/clusterissuers\.cert-manager\.io \(in flux-system\/infra-cert-manager\) +1 object\n/);
  });
});
