import { describe, expect, it } from 'vitest';
import { selectProblems } from '../../src/lint/select-problems.js';
import type { ClusterModel } from '../../src/model/flux.js';
import type { Problem } from '../../src/model/problem.js';
import { unmatchedNames } from '../../src/plan/select.js';
import { cli } from './run.js';

// -n, -A, NAME... and --no-header on graph and check, as on plan and status (src/cli/selection.ts).

const problem = (code: Problem['code'], object: string | null, tier?: string): Problem =>
  ({ code, severity: 'error', message: code, file: 'x.yaml', line: 1, object, cluster: 'dev', ...(tier ? { tier } : {}) });
const CLUSTER = {
  name: 'dev', entry: 'clusters/dev', kustomizations: [], objectsComplete: true, externalSources: [],
  objects: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'cm', namespace: 'apps', origin: { file: 'apps/cm.yaml', line: 1 }, owner: 'flux-system/apps', raw: {} }],
} as unknown as ClusterModel;

describe('selectProblems', () => {
  const all = [
    problem('missing-dependency', 'Kustomization/flux-system/apps'),
    problem('runtime-crd', 'Bucket/b', 'flux-system/infra'),
    problem('duplicate', 'ConfigMap/apps/cm'),
    problem('legacy-order', null),
    { ...problem('cycle', 'Kustomization/flux-system/a'), target: 'flux-system/a -> flux-system/b -> flux-system/a' },
  ];
  it.each([
    ['a Kustomization by name: its own problems and those of the objects it applies', { names: ['apps'] }, ['missing-dependency', 'duplicate']],
    ['a Kustomization on a cycle another one reports', { names: ['b'] }, ['cycle']],
    ['the tier a problem names', { names: ['flux-system/infra'] }, ['runtime-crd']],
    ['a namespace', { namespace: 'flux-system', names: [] }, ['missing-dependency', 'runtime-crd', 'duplicate', 'cycle']],
    ['a namespace nothing is in', { namespace: 'nowhere', names: [] }, []],
    ['no selection: every problem, those about no Kustomization too', { names: [] }, ['missing-dependency', 'runtime-crd', 'duplicate', 'legacy-order', 'cycle']],
  ])('%s', (_n, s, codes) => {
    expect(selectProblems(all, [CLUSTER], s).map((p) => p.code)).toEqual(codes);
  });

  it('unmatchedNames: names no cluster has, with close names from every cluster', () => {
    expect(unmatchedNames([['flux-system/apps'], ['flux-system/sonarr-4k']], { names: ['apps', 'sonarr', 'zzzzzz'] }))
      .toEqual({ missing: ['sonarr', 'zzzzzz'], near: ['flux-system/sonarr-4k'] });
  });
});

describe('standup graph NAME... -n -A --no-header', () => {
  it('the tree shows the selected Kustomizations and nothing else', async () => {
    const r = await cli('graph', '--cluster', 'dev', 'headlamp');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('dev (examples/homelab/clusters/dev)\n└── [3] headlamp  <- oauth2-proxy\n');
    const bare = await cli('graph', '--cluster', 'dev', '--no-header', 'headlamp');
    expect(bare.stdout).toBe('└── [3] headlamp  <- oauth2-proxy\n');
  });

  it('-o json: the selected nodes, their edges and what was asked; Mermaid draws what they depend on too', async () => {
    const r = await cli('graph', '--cluster', 'dev', 'flux-system/headlamp', '-o', 'json');
    const [c] = JSON.parse(r.stdout).clusters;
    expect(c.nodes.map((n: { key: string }) => n.key)).toEqual(['flux-system/headlamp']);
    expect(c.edges).toEqual([{ from: 'flux-system/headlamp', to: 'flux-system/oauth2-proxy', kind: 'dependsOn' }]);
    expect(c.selection).toEqual({ namespace: null, names: ['flux-system/headlamp'], total: 9 });
    const m = await cli('graph', '--cluster', 'dev', 'headlamp', '-o', 'mermaid');
    expect(m.stdout).toBe('flowchart LR\n  c0n0["oauth2-proxy"]\n  c0n1["headlamp"]\n  c0n0 --> c0n1\n');
  });

  it('-A is the default; -n with -A, or a name no cluster has, is exit 2', async () => {
    expect((await cli('graph', '--cluster', 'dev', '-A')).stdout).toBe((await cli('graph', '--cluster', 'dev')).stdout);
    expect((await cli('graph', '-n', 'flux-system', '-A')).code).toBe(2);
    const r = await cli('graph', '--cluster', 'dev', 'headlamb');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no Kustomization headlamb in cluster dev');
    expect(r.stderr).toContain('Did you mean flux-system/headlamp?');
  });

  it('an -n no cluster has: an empty result, and stderr lists the namespaces that have Kustomizations', async () => {
    const r = await cli('graph', '--cluster', 'dev', '-n', 'nowhere', '--no-header');
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe('');
    expect(r.stderr).toContain('no Kustomization in namespace nowhere; namespaces with Kustomizations: flux-system');
  });
});

describe('standup check NAME... -n --no-header', () => {
  const repo = ['--repo', 'test/fixtures/lint/runtime-crd-declared'];
  it('shows and fails only on the problems of the selected Kustomizations', async () => {
    const all = await cli('check', ...repo, '-o', 'json');
    expect(all.code).toBe(2);
    expect(JSON.parse(all.stdout).problems.map((p: Problem) => p.tier)).toContain('flux-system/crossplane');
    const mine = await cli('check', ...repo, 'crossplane', '-o', 'json');
    expect(mine.code).toBe(2);
    const other = await cli('check', ...repo, '-n', 'nowhere');
    expect(other.code).toBe(0);
    expect(other.stdout).toMatch(/^✔ no problems in 1 cluster\(s\) \(1 not shown \(--severity, --code, -n, names\)\)/);
  });

  it('--no-header: the problems without the summary', async () => {
    const r = await cli('check', ...repo, '--no-header');
    expect(r.code).toBe(2);
    expect(r.stdout).not.toMatch(/error\(s\)|by code:|evaluated/);
    expect(r.stdout).toMatch(/^\S+:\d+ {2}error runtime-crd/);
  });

  it('an unknown name is exit 2 before anything is printed', async () => {
    const r = await cli('check', ...repo, 'crossplan');
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('Did you mean flux-system/crossplane?');
  });
});

describe('standup plan --no-header', () => {
  it('prints only the rows, one Kustomization a line', async () => {
    const r = await cli('plan', '--repo', 'test/fixtures/lint/missing-dependency', '--no-header');
    expect(r.stdout).toBe('0  flux-system/flux-system  - (root sync: applies the tiers)\n0  flux-system/infra        -\n1  flux-system/apps         flux-system/infra, flux-system/database\n');
  });
});
