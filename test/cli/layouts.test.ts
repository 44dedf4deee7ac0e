// plan, graph and check on the layouts of test/fixtures/repo (valuesFrom values, a fleet of overlays patching a
// root, two roots on one path): golden `plan -o json`, --path agreeing with discovery, and what is not expanded
// said on stderr.
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupRepos, cm, ks, makeRepo } from '../helpers/repo-fixtures.js';
import { cli } from './run.js';

afterAll(cleanupRepos);

const fixture = (name: string) => `test/fixtures/repo/${name}`;

interface PlanJson {
  clusters: { name: string; entry: string; kustomizations: { key: string; expanded: boolean }[] }[];
}

describe.each(['values-from', 'fleet', 'two-roots'])('plan on fixture %s', (name) => {
  it('-o json: every cluster, every Kustomization expanded (golden)', async () => {
    const r = await cli('plan', '--repo', fixture(name), '-o', 'json');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const json = JSON.parse(r.stdout) as PlanJson;
    expect(json.clusters.flatMap((c) => c.kustomizations).every((k) => k.expanded)).toBe(true);
    await expect(r.stdout).toMatchFileSnapshot(`golden/plan-${name}.json`);
  });

  it('--path ENTRY prints the same cluster as discovery, with nothing on stderr', async () => {
    const all = JSON.parse((await cli('plan', '--repo', fixture(name), '-o', 'json')).stdout) as PlanJson;
    for (const c of all.clusters) {
      const one = await cli('plan', '--repo', fixture(name), '--path', c.entry, '-o', 'json');
      expect(one.stderr).toBe('');
      expect(JSON.parse(one.stdout)).toEqual({ clusters: [c] });
    }
  });
});

describe('what is not expanded is said', () => {
  const repo = () =>
    makeRepo({
      'envs/lab/infra.yaml': ks('infra', { path: './infra', wait: true }),
      'envs/lab/apps.yaml': ks('apps', { path: './apps', dependsOn: [{ name: 'infra' }] }).replace('name: flux-system\n    namespace', 'name: lab\n    namespace'),
      'infra/cm.yaml': cm('infra'),
      'apps/cm.yaml': cm('apps'),
    });

  it('plan: the assumed source and the Kustomization left out, on stderr; expanded:false in JSON; exit 0', async () => {
    const root = repo();
    const r = await cli('plan', '--repo', root, '--path', 'envs/lab', '-o', 'json');
    expect(r.code).toBe(0);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^! cluster lab: no root sync in the repository reconciles envs\/lab .* GitRepository\/flux-system\/flux-system; pass --source KIND\/NAMESPACE\/NAME/);
    expect(lines[1]).toBe('! 1 Kustomization not expanded (source not this repository: flux-system/apps); run `standup check` for why');
    const json = JSON.parse(r.stdout) as PlanJson;
    expect(json.clusters[0]!.kustomizations.map((k) => [k.key, k.expanded])).toEqual([
      ['flux-system/infra', true],
      ['flux-system/apps', false],
    ]);
  });

  it('graph says it too; --source makes the other tier the one left out', async () => {
    const root = repo();
    const g = await cli('graph', '--repo', root, '--path', 'envs/lab');
    expect(g.stderr).toContain('1 Kustomization not expanded (source not this repository: flux-system/apps)');
    const s = await cli('graph', '--repo', root, '--path', 'envs/lab', '--source', 'GitRepository/flux-system/lab');
    expect(s.stderr.trimEnd()).toBe('! 1 Kustomization not expanded (source not this repository: flux-system/infra); run `standup check` for why');
  });

  it('check: the info says why, and the summary how many were evaluated; info never fails it', async () => {
    const r = await cli('check', '--repo', repo(), '--path', 'envs/lab', '--strict');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('envs/lab/apps.yaml:4  info external-source');
    expect(r.stdout).toContain('Kustomization flux-system/apps is not expanded: GitRepository flux-system/lab is not declared in git');
    expect(r.stdout).toContain('evaluated 1 of 2 Kustomization(s); 1 could not be (1 external-source)');
  });
});

describe('bad input', () => {
  it('--path to a folder with no Flux Kustomization: exit 2', async () => {
    const root = makeRepo({ 'plain/cm.yaml': cm('x') });
    const r = await cli('plan', '--repo', root, '--path', 'plain');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no Flux Kustomization under plain');
  });

  it('--source with a kind that is not a Flux source: exit 2 with the accepted kinds', async () => {
    const r = await cli('plan', '--repo', fixture('two-roots'), '--source', 'HelmRepository/flux-system/charts');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('HelmRepository is not a Flux source a Kustomization can read');
    expect(r.stderr).toContain('GitRepository, OCIRepository, Bucket, ExternalArtifact');
  });
});
