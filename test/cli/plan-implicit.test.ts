// `plan -o json`'s implicitDependsOn: a HelmRelease dependsOn on a HelmRelease of a tier outside the dependent
// tier's dependsOn closure (zigbee2mqtt waits for mosquitto, but tier zigbee does not depend on tier mosquitto).
// plan builds only the leaf tiers that may hold such HelmReleases, and lists exactly what check reports.
import { afterAll, describe, expect, it } from 'vitest';
import { loadRepository } from '../../src/load/load-repository.js';
import { cleanupRepos, devTiers, ks, makeRepo } from '../helpers/repo-fixtures.js';
import { cli } from './run.js';

afterAll(cleanupRepos);

const hr = (name: string, namespace: string, dependsOn: { name: string; namespace?: string }[] = []) =>
  [
    'apiVersion: helm.toolkit.fluxcd.io/v2',
    'kind: HelmRelease',
    'metadata:',
    `  name: ${name}`,
    `  namespace: ${namespace}`,
    'spec:',
    '  interval: 30m',
    '  chart:',
    '    spec:',
    `      chart: ${name}`,
    '      sourceRef: {kind: HelmRepository, name: charts, namespace: flux-system}',
    ...(dependsOn.length ? ['  dependsOn:', ...dependsOn.flatMap((d) => [`    - name: ${d.name}`, ...(d.namespace ? [`      namespace: ${d.namespace}`] : [])])] : []),
  ].join('\n') + '\n';
const kz = (resources: string[]) => `apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [${resources.join(', ')}]\n`;
const deploy = (name: string) => `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: ${name}\nspec: {}\n`;

const repo = () =>
  makeRepo({
    'tiers.yaml': devTiers,
    'clusters/dev/apps.yaml': [
      ks('mosquitto', { path: './apps/mosquitto' }),
      ks('zigbee', { path: './apps/zigbee' }),
      // Ordered: its HelmRelease's dependency is Ready first, so no implicit edge.
      ks('frigate', { path: './apps/frigate', dependsOn: [{ name: 'mosquitto' }] }),
      // Its dependency is in its own tier: no edge.
      ks('media', { path: './apps/media' }),
      // A leaf with no HelmRelease anyone depends on: plan never builds it.
      ks('web', { path: './apps/web' }),
      // Depends on a HelmRelease that no tier applies (another source): nothing to say.
      ks('lonely', { path: './apps/lonely' }),
    ].join('---\n'),
    // The target sits two kustomizations down, named the way a kustomization includes it.
    'apps/mosquitto/kustomization.yaml': kz(['./app']),
    'apps/mosquitto/app/kustomization.yaml': kz(['helmrelease.yaml']),
    'apps/mosquitto/app/helmrelease.yaml': hr('mosquitto', 'home'),
    'apps/zigbee/helmrelease.yaml': hr('zigbee2mqtt', 'home', [{ name: 'mosquitto' }]),
    'apps/frigate/helmrelease.yaml': hr('frigate', 'home', [{ name: 'mosquitto', namespace: 'home' }]),
    'apps/media/helmrelease.yaml': hr('jellyfin', 'media', [{ name: 'media-db' }]) + '---\n' + hr('media-db', 'media'),
    'apps/web/deploy.yaml': deploy('web'),
    'apps/lonely/helmrelease.yaml': hr('lonely', 'home', [{ name: 'elsewhere' }]),
  });

interface PlanJson {
  clusters: { kustomizations: { key: string; expanded: boolean; implicitDependsOn: { via: { from: string } }[] }[] }[];
}

const implicitEdges = (plan: PlanJson) =>
  plan.clusters.flatMap((c) => c.kustomizations.flatMap((k) => k.implicitDependsOn.map((d) => `${k.key} ${d.via.from}`))).sort();

describe('plan -o json: implicitDependsOn', () => {
  it('lists the HelmRelease order the tier graph hides, on the dependent Kustomization only', async () => {
    const root = repo();
    const r = await cli('plan', '--repo', root, '-o', 'json');
    expect(r.code).toBe(0);
    const ks = (JSON.parse(r.stdout) as PlanJson).clusters[0]!.kustomizations;
    const implicit = Object.fromEntries(ks.map((k) => [k.key, k.implicitDependsOn]));
    expect(implicit).toEqual({
      'flux-system/mosquitto': [],
      'flux-system/zigbee': [{ namespace: 'flux-system', name: 'mosquitto', via: { from: 'HelmRelease/home/zigbee2mqtt', to: 'HelmRelease/home/mosquitto' } }],
      'flux-system/frigate': [],
      'flux-system/media': [],
      'flux-system/web': [],
      'flux-system/lonely': [],
    });
    expect(ks.every((k) => k.expanded)).toBe(true);
    await expect(r.stdout).toMatchFileSnapshot('golden/plan-implicit.json');
  });

  it('without helmOrders (the text of plan, graph) the extra tiers are not built', async () => {
    const plain = Object.fromEntries((await loadRepository({ repo: repo(), scope: 'graph' })).clusters[0]!.kustomizations.map((k) => [k.name, k.expansion]));
    expect(plain).toMatchObject({ mosquitto: 'deferred', zigbee: 'deferred', web: 'deferred' });
  });

  it('with --no-helm-orders -o json leaves the field out and builds none of those tiers', async () => {
    const root = repo();
    const r = await cli('plan', '--repo', root, '-o', 'json', '--no-helm-orders', '--verbose');
    expect(r.code).toBe(0);
    const ks = (JSON.parse(r.stdout) as PlanJson).clusters[0]!.kustomizations;
    expect(ks.map((k) => 'implicitDependsOn' in k)).toEqual(ks.map(() => false));
    expect(r.stderr).not.toContain('with HelmRelease orders');
    expect(r.stderr).toMatch(/load done in \d+ ms: 1 builds/);
  });

  it('-o text builds none of those tiers, with or without --no-helm-orders', async () => {
    for (const extra of [[], ['--no-helm-orders']]) {
      const r = await cli('plan', '--repo', repo(), '--verbose', ...extra);
      expect(r.code).toBe(0);
      expect(r.stderr).toMatch(/load done in \d+ ms: 1 builds/);
    }
  });

  it('-o yaml carries the same field', async () => {
    const r = await cli('plan', '--repo', repo(), '-o', 'yaml');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/implicitDependsOn:\n\s+- namespace: flux-system\n\s+name: mosquitto\n\s+via:\n\s+from: HelmRelease\/home\/zigbee2mqtt\n\s+to: HelmRelease\/home\/mosquitto\n/);
  });

  it('builds only the tiers that may hold a dependent HelmRelease or its target; the edges equal check\'s', async () => {
    const root = repo();
    const graph = await loadRepository({ repo: root, scope: 'graph', helmOrders: true });
    const graphBuilds = graph.stats.builds;
    const fullBuilds = (await loadRepository({ repo: root })).stats.builds;
    const expansion = Object.fromEntries(graph.clusters[0]!.kustomizations.map((k) => [k.name, k.expansion]));
    // mosquitto (a target), zigbee, frigate, media and lonely (HelmReleases with dependsOn) are built; web is not.
    expect(expansion).toMatchObject({ mosquitto: 'built', zigbee: 'built', frigate: 'built', media: 'built', lonely: 'built', web: 'deferred' });
    expect(graphBuilds).toBe(fullBuilds - 1);
    // The same edges as check's helmrelease-order findings (one rule, one edge finder).
    const check = JSON.parse((await cli('check', '--repo', root, '--code', 'helmrelease-order', '-o', 'json')).stdout) as { problems: { tier: string; object: string }[] };
    const plan = JSON.parse((await cli('plan', '--repo', root, '-o', 'json')).stdout) as PlanJson;
    expect(implicitEdges(plan)).toEqual(check.problems.map((p) => `${p.tier} ${p.object}`).sort());
    expect(implicitEdges(plan)).toEqual(['flux-system/zigbee HelmRelease/home/zigbee2mqtt']);
  });
});
