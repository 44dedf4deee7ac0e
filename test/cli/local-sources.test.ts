// --local-source and tiers.yaml localSources: a fleet whose tiers read two other repositories (an infrastructure
// GitRepository named by KIND/NAMESPACE/NAME, an apps OCIRepository named by its URL) read as one graph; a mapping
// that is malformed, missing or not a repository is exit 2 naming the flag or tiers.yaml:line.
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupRepos, cm, makeRepo } from '../helpers/repo-fixtures.js';
import { cli } from './run.js';

afterAll(cleanupRepos);

const source = (kind: string, name: string, url: string) =>
  `apiVersion: source.toolkit.fluxcd.io/v1\nkind: ${kind}\nmetadata:\n  name: ${name}\n  namespace: flux-system\nspec:\n  interval: 1m\n  url: ${url}\n`;

const tier = (name: string, p: string, from: { kind: string; name: string }, deps: string[] = []) =>
  [
    'apiVersion: kustomize.toolkit.fluxcd.io/v1',
    'kind: Kustomization',
    'metadata:',
    `  name: ${name}`,
    '  namespace: flux-system',
    'spec:',
    '  interval: 10m',
    `  path: ${p}`,
    '  prune: true',
    ...(deps.length ? ['  dependsOn:', ...deps.map((d) => `    - name: ${d}`)] : []),
    '  sourceRef:',
    `    kind: ${from.kind}`,
    `    name: ${from.name}`,
    '',
  ].join('\n');

/** A workspace: fleet/ (the repository), infra/ and apps/ (its companions), side by side. */
function workspace(): string {
  return makeRepo({
    'fleet/clusters/lab/flux-system/gotk-sync.yaml':
      source('GitRepository', 'flux-system', 'https://git.example.com/fleet.git') + '---\n' + tier('flux-system', './clusters/lab', { kind: 'GitRepository', name: 'flux-system' }),
    'fleet/clusters/lab/sources.yaml': source('GitRepository', 'infra', 'https://git.example.com/infra.git') + '---\n' + source('OCIRepository', 'apps', 'oci://registry.example.com/apps'),
    'fleet/clusters/lab/tiers.yaml':
      tier('infra-controllers', './controllers', { kind: 'GitRepository', name: 'infra' }).replace('  prune: true', '  prune: true\n  wait: true') + '---\n' + tier('apps', './lab', { kind: 'OCIRepository', name: 'apps' }, ['infra-controllers']),
    // The infrastructure repository: its controllers tier applies one more Kustomization, from itself.
    'infra/controllers/kustomization.yaml': 'resources:\n  - cm.yaml\n  - configs.yaml\n',
    'infra/controllers/cm.yaml': cm('controllers'),
    'infra/controllers/configs.yaml': tier('infra-configs', './configs', { kind: 'GitRepository', name: 'infra' }, ['infra-controllers']),
    'infra/configs/cm.yaml': cm('configs'),
    'apps/lab/cm.yaml': cm('app'),
  });
}

interface PlanJson {
  clusters: { kustomizations: { key: string; dependsOn: string[]; level: number; expanded: boolean }[] }[];
}

describe('local sources', () => {
  it('a fleet and two companions read as one graph (a source by name, one by URL); without them, 2 external', async () => {
    const ws = workspace();
    const fleet = path.join(ws, 'fleet');
    const without = await cli('plan', '--repo', fleet, '-o', 'json');
    expect(without.stderr).toContain('2 Kustomizations not expanded (source not this repository: flux-system/apps, flux-system/infra-controllers)');
    const r = await cli('plan', '--repo', fleet, '-o', 'json', '--local-source', `GitRepository/flux-system/infra=${path.join(ws, 'infra')}`, '--local-source', `oci://registry.example.com/apps=${path.join(ws, 'apps')}`);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const ks = (JSON.parse(r.stdout) as PlanJson).clusters[0]!.kustomizations;
    expect(ks.map((k) => [k.key, k.level, k.dependsOn, k.expanded])).toEqual([
      ['flux-system/flux-system', 0, [], true],
      ['flux-system/infra-controllers', 0, [], true],
      ['flux-system/apps', 1, ['flux-system/infra-controllers'], true],
      ['flux-system/infra-configs', 1, ['flux-system/infra-controllers'], true],
    ]);
    const check = await cli('check', '--repo', fleet, '-o', 'json', '--local-source', `GitRepository/flux-system/infra=${path.join(ws, 'infra')}`, '--local-source', `oci://registry.example.com/apps=${path.join(ws, 'apps')}`);
    expect(check.code).toBe(0);
    expect((JSON.parse(check.stdout) as { problems: unknown[] }).problems).toEqual([]);
  });

  it('tiers.yaml localSources does the same, relative to the repository', async () => {
    const ws = workspace();
    const fleet = path.join(ws, 'fleet');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(path.join(fleet, 'tiers.yaml'), 'version: 1\nlocalSources:\n  GitRepository/flux-system/infra: ../infra\n  "oci://registry.example.com/apps": ../apps\n');
    const r = await cli('plan', '--repo', fleet, '-o', 'json');
    expect(r.stderr).toBe('');
    expect((JSON.parse(r.stdout) as PlanJson).clusters[0]!.kustomizations.every((k) => k.expanded)).toBe(true);
  });

  it('a mapped directory missing or holding no manifests, or a malformed mapping: exit 2 naming the flag or tiers.yaml:line', async () => {
    const ws = workspace();
    const fleet = path.join(ws, 'fleet');
    const missing = await cli('plan', '--repo', fleet, '--local-source', `GitRepository/flux-system/infra=${path.join(ws, 'nope')}`);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`--local-source GitRepository/flux-system/infra=${path.join(ws, 'nope')}: ${path.join(ws, 'nope')} is not a directory`);
    const empty = makeRepo({ 'README.md': 'no manifests\n' });
    const notRepo = await cli('plan', '--repo', fleet, '--local-source', `GitRepository/flux-system/infra=${empty}`);
    expect(notRepo.code).toBe(2);
    expect(notRepo.stderr).toContain('is not a repository of manifests');
    const bad = await cli('plan', '--repo', fleet, '--local-source', 'Deployment/x/y=.');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--local-source Deployment/x/y=.: "Deployment/x/y": Deployment is not a Flux source');
    const noDir = await cli('plan', '--repo', fleet, '--local-source', 'GitRepository/flux-system/infra');
    expect(noDir.code).toBe(2);
    expect(noDir.stderr).toContain('--local-source GitRepository/flux-system/infra: no =DIR');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(path.join(fleet, 'tiers.yaml'), 'version: 1\nlocalSources:\n  GitRepository/flux-system/infra: ../infra\n  GitRepository/flux-system/apps: ../gone\n');
    const conf = await cli('plan', '--repo', fleet);
    expect(conf.code).toBe(2);
    expect(conf.stderr).toContain('tiers.yaml:4 localSources."GitRepository/flux-system/apps": ../gone is not a directory');
  });
});
