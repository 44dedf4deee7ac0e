import { describe, expect, it } from 'vitest';
import { cli } from './run.js';

// Golden files for the text people read; regenerate with `vitest -u` after an intended change, and review the diff.
describe('plan and graph on the bundled example', () => {
  it('plan prints TIER_ORDER with platform-config-cdi after platform-config and apps-vms after it', async () => {
    const r = await cli('plan', '--cluster', 'dev');
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('TIER_ORDER=(crds platform oauth2-proxy platform-config apps headlamp platform-config-cdi apps-vms)');
    await expect(r.stdout).toMatchFileSnapshot('golden/plan-dev.txt');
  });

  it('plan -o json follows the documented contract', async () => {
    const r = await cli('plan', '-o', 'json');
    const json = JSON.parse(r.stdout) as { clusters: { name: string; entry: string; levels: string[][]; tiers: string[]; kustomizations: Record<string, unknown>[] }[] };
    expect(json.clusters.map((c) => c.name)).toEqual(['dev', 'prod']);
    const dev = json.clusters[0]!;
    expect(dev.entry).toBe('examples/homelab/clusters/dev');
    expect(dev.levels[0]).toEqual(['flux-system/crds', 'flux-system/flux-system']);
    expect(dev.tiers).not.toContain('flux-system/flux-system');
    expect(dev.kustomizations.find((k) => k.key === 'flux-system/apps-vms')).toEqual({
      key: 'flux-system/apps-vms', path: './apps/vms', dependsOn: ['flux-system/platform-config', 'flux-system/platform-config-cdi'],
      parent: 'flux-system/flux-system', level: 4, file: 'examples/homelab/clusters/base/apps-vms.yaml',
      source: 'GitRepository/flux-system/flux-system', expanded: true, implicitDependsOn: [],
    });
    expect(dev.kustomizations.every((k) => k.expanded === true)).toBe(true);
  });

  it.each([['text'], ['mermaid'], ['dot']])('graph -o %s', async (format) => {
    const r = await cli('graph', '--cluster', 'dev', '-o', format);
    expect(r.code).toBe(0);
    await expect(r.stdout).toMatchFileSnapshot(`golden/graph-dev.${format === 'text' ? 'txt' : format === 'mermaid' ? 'mmd' : 'dot'}`);
  });

  it('graph -o json has dependsOn and nesting edges', async () => {
    const g = JSON.parse((await cli('graph', '--cluster', 'dev', '-o', 'json')).stdout);
    const edges = g.clusters[0].edges as { from: string; to: string; kind: string }[];
    expect(edges).toContainEqual({ from: 'flux-system/platform-config-cdi', to: 'flux-system/platform-config', kind: 'dependsOn' });
    expect(edges).toContainEqual({ from: 'flux-system/flux-system', to: 'flux-system/apps', kind: 'nesting' });
  });

  it('rejects an unknown output format, listing the choices, with exit 2', async () => {
    const r = await cli('graph', '-o', 'svg');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unknown output format "svg"');
    expect(r.stderr).toContain('text, mermaid, dot, json');
  });

  it('an unknown cluster is exit 2 naming the known ones', async () => {
    const r = await cli('plan', '--cluster', 'staging');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/staging/);
    expect(r.stderr).toMatch(/dev/);
  });
});
