import type { Graph } from '../../graph/graph.js';
import type { BootstrapInstall } from '../../model/bootstrap.js';
import type { ClusterModel, FluxKustomization } from '../../model/flux.js';
import { atKustomization, type Rule } from '../rule.js';

// A tier others depend on waits for health (wait: true or healthChecks): otherwise dependents start once it has
// merely applied, before what it applied is healthy (FLUX.md §4). A dependent the tier itself applies (a child, or
// a child's child, depending on its ancestor) is left out: it only exists once the ancestor has applied, and a
// wait: true on the ancestor would wait for that child's Ready while the child waits for the ancestor's, a deadlock
// until the ancestor's timeout. A tier whose every HelmRelease the bootstrap installs before Flux (a helmfile release,
// a helm install) is already healthy when its dependents start: an info naming the bootstrap, not a warning.
export const waitDependencyRule: Rule = {
  code: 'wait-dependency',
  description: 'a tier that others depend on waits for health',
  check: ({ clusters, bootstrap }) =>
    clusters.flatMap(({ cluster, graph }) =>
      [...graph.nodes.values()]
        .filter((ks) => !ks.wait && ks.healthChecks === 0)
        .map((ks) => ({ ks, dependents: outside(graph, ks.key) }))
        .filter(({ dependents }) => dependents.length > 0)
        .map(({ ks, dependents }) => {
          const them = `${ks.key} has ${dependents.length} dependent(s) (${dependents.slice(0, 3).join(', ')}${dependents.length > 3 ? ', …' : ''})`;
          const pre = preInstalled(cluster, ks, bootstrap?.installs ?? []);
          return pre
            ? atKustomization(
                'wait-dependency',
                'info',
                cluster.name,
                ks,
                `${them} and neither wait: true nor healthChecks, but every HelmRelease it applies (${pre.releases.join(', ')}) is installed ` +
                  `before Flux by the bootstrap (${pre.at}), so its dependents find it running already.`,
              )
            : atKustomization(
                'wait-dependency',
                'warning',
                cluster.name,
                ks,
                `${them} but neither wait: true nor healthChecks, so they start as soon ` +
                  `as it has applied, not when what it applied is healthy. Add spec.wait: true or spec.healthChecks.`,
              );
        }),
    ),
};

/** The tier's HelmReleases when the bootstrap installs every one of them before Flux (by name and namespace), else null. */
function preInstalled(cluster: ClusterModel, ks: FluxKustomization, installs: readonly BootstrapInstall[]): { releases: string[]; at: string } | null {
  const charts = installs.filter((i) => (i.kind === 'helmfile-release' && !i.crdsOnly) || i.kind === 'chart-install');
  const hrs = cluster.objects.filter((o) => o.kind === 'HelmRelease' && o.owner === ks.key);
  if (hrs.length === 0 || charts.length === 0) return null;
  const by = hrs.map((hr) => charts.find((i) => i.name === hr.name && (i.namespace === null || hr.namespace === null || i.namespace === hr.namespace)));
  if (by.some((i) => !i)) return null;
  const at = [...new Set(by.map((i) => (i!.line ? `${i!.file}:${i!.line}` : i!.file)))];
  return { releases: hrs.map((hr) => `${hr.namespace ?? ks.namespace}/${hr.name}`), at: at.join(', ') };
}

/** The tiers depending on `key` that `key` does not itself apply (directly or through its children). */
function outside(graph: Graph, key: string): string[] {
  const dependents = graph.dependents.get(key) ?? [];
  if (dependents.length === 0) return [];
  const applied = new Set<string>();
  const stack = [...(graph.children.get(key) ?? [])];
  while (stack.length > 0) {
    const k = stack.pop()!;
    if (applied.has(k)) continue;
    applied.add(k);
    stack.push(...(graph.children.get(k) ?? []));
  }
  return dependents.filter((d) => !applied.has(d));
}
