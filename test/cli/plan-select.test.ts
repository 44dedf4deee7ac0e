import { describe, expect, it } from 'vitest';
import { closeNames, matches, selectPlan } from '../../src/plan/select.js';
import type { ClusterPlan } from '../../src/plan/plan.js';
import { cli } from './run.js';

// `plan NAME...`, `-n NAMESPACE` and `-A`, as kubectl and flux select objects.
const ks = (key: string, level: number | null, dependsOn: string[] = []) =>
  ({ key, path: `./${key.split('/')[1]}`, dependsOn, parent: null, level, file: 'x.yaml', source: { kind: 'GitRepository', namespace: 'flux-system', name: 'flux-system' } });
const PLAN: ClusterPlan = {
  name: 'dev',
  entry: 'clusters/dev',
  levels: [['flux-system/crds', 'apps/db'], ['flux-system/infra'], ['apps/web']],
  tiers: ['flux-system/crds', 'apps/db', 'flux-system/infra', 'apps/web'],
  kustomizations: [ks('flux-system/crds', 0), ks('apps/db', 0), ks('flux-system/infra', 1, ['flux-system/crds']), ks('apps/web', 2, ['flux-system/infra', 'apps/db'])],
};

describe('selectPlan', () => {
  it.each([
    ['a bare name matches it in any namespace', { names: ['web'] }, ['apps/web']],
    ['namespace/name matches exactly', { names: ['flux-system/infra'] }, ['flux-system/infra']],
    ['-n alone selects the namespace', { namespace: 'apps', names: [] }, ['apps/db', 'apps/web']],
    ['-n with a bare name looks only there', { namespace: 'flux-system', names: ['web'] }, []],
    ['several names', { names: ['crds', 'apps/web'] }, ['flux-system/crds', 'apps/web']],
  ])('%s', (_n, sel, keys) => {
    const { plan } = selectPlan(PLAN, sel);
    expect(plan.kustomizations.map((k) => k.key)).toEqual(keys);
    expect(plan.tiers).toEqual(keys);
  });

  it('keeps level numbers: each level keeps its index and `level` still indexes `levels`', () => {
    const { plan } = selectPlan(PLAN, { names: ['web'] });
    expect(plan.levels).toEqual([[], [], ['apps/web']]);
    expect(plan.kustomizations[0]!.level).toBe(2);
    expect(plan.selection).toEqual({ namespace: null, names: ['web'], total: 4 });
  });

  it('no selection is the plan itself, without a selection field', () => {
    const { plan } = selectPlan(PLAN, { names: [] });
    expect(plan).toBe(PLAN);
  });

  it('lists names that matched nothing, and suggests close ones', () => {
    expect(selectPlan(PLAN, { names: ['web', 'infar'] }).unmatched).toEqual(['infar']);
    expect(closeNames(PLAN, 'infar')).toEqual(['flux-system/infra']);
    expect(closeNames(PLAN, 'zzzzzzzz')).toEqual([]);
    expect(matches('apps/web', { namespace: 'apps', names: ['apps/web'] })).toBe(true);
  });
});

describe('standup plan NAME... -n -A', () => {
  it('prints only the named tiers, with their global levels and what they depend on', async () => {
    const r = await cli('plan', '--cluster', 'dev', 'apps-vms', 'flux-system/crds');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('2 of 9 Kustomizations, 5 levels');
    expect(r.stdout).toContain('TIER_ORDER=(crds apps-vms)');
    expect(r.stdout).toMatch(/^4\s+flux-system\/apps-vms\s+flux-system\/platform-config, flux-system\/platform-config-cdi$/m);
    // -o wide adds the path.
    const wide = await cli('plan', '--cluster', 'dev', 'apps-vms', '-o', 'wide');
    expect(wide.stdout).toMatch(/^4\s+flux-system\/apps-vms\s+\.\/apps\/vms\s+flux-system\/platform-config, flux-system\/platform-config-cdi$/m);
  });

  it('-o json says what was selected, out of how many', async () => {
    const r = await cli('plan', '--cluster', 'dev', '-n', 'flux-system', 'apps', '-o', 'json');
    const [c] = JSON.parse(r.stdout).clusters;
    expect(c.kustomizations.map((k: { key: string }) => k.key)).toEqual(['flux-system/apps']);
    expect(c.selection).toEqual({ namespace: 'flux-system', names: ['apps'], total: 9 });
    expect(c.levels[c.kustomizations[0].level]).toEqual(['flux-system/apps']);
  });

  it('-n of a namespace without Kustomizations prints an empty plan, not an error', async () => {
    const r = await cli('plan', '--cluster', 'dev', '-n', 'nowhere', '-o', 'json');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).clusters[0].kustomizations).toEqual([]);
  });

  it('-A is every namespace, the default', async () => {
    const all = await cli('plan', '--cluster', 'dev', '-A', '-o', 'json');
    const plain = await cli('plan', '--cluster', 'dev', '-o', 'json');
    expect(all.stdout).toBe(plain.stdout);
  });

  it('an unknown name is exit 2, naming it and the close names', async () => {
    const r = await cli('plan', 'platfrom-config');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no Kustomization platfrom-config in clusters dev, prod');
    expect(r.stderr).toContain('Did you mean flux-system/platform-config?');
  });

  it('-n with -A is exit 2; a name that is no Kubernetes name is exit 2', async () => {
    expect((await cli('plan', '-n', 'apps', '-A')).code).toBe(2);
    const bad = await cli('plan', 'Apps_1');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('not a Kustomization name: "Apps_1"');
  });
});

describe('standup plan -o markdown', () => {
  it('a heading per cluster, TIER_ORDER in a code block and the Kustomizations by level in a table', async () => {
    const r = await cli('plan', '--cluster', 'dev', '-o', 'markdown');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('### standup plan: cluster `dev`');
    expect(r.stdout).toContain('```sh\nTIER_ORDER=(crds platform oauth2-proxy platform-config apps headlamp platform-config-cdi apps-vms)\n```');
    expect(r.stdout).toContain('| level | Kustomization | path | depends on |');
    expect(r.stdout).toContain('| 4 | `flux-system/apps-vms` | `./apps/vms` | `platform-config`, `platform-config-cdi` |');
    expect(r.stdout).toContain('| 0 | `flux-system/flux-system` | `./clusters/dev` | root sync: applies the tiers |');
  });
});
