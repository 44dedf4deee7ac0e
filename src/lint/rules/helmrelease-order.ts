import type { Graph } from '../../graph/graph.js';
import type { ClusterModel } from '../../model/flux.js';
import type { Problem } from '../../model/problem.js';
import { refKey } from '../../model/ref.js';
import { dependsOnEntry, Order } from '../../graph/order.js';
import type { Rule } from '../rule.js';
import { hiddenHelmOrders } from '../../plan/helm-order.js';

// A HelmRelease's spec.dependsOn on a HelmRelease that another tier applies is an order the tier graph does not
// show: helm-controller holds the release until its dependency is Ready, whenever that tier happens to run. Fine
// when the dependency's tier runs first (dependsOn, or an ancestor); a hidden order (warning) otherwise; a deadlock
// (error) when that tier can only run after this one and this one waits for its HelmRelease (wait/healthChecks).

export const helmReleaseOrderRule: Rule = {
  code: 'helmrelease-order',
  description: "a HelmRelease's dependsOn is reachable through its tier's Kustomization dependsOn",
  check: ({ clusters }) => clusters.flatMap(({ cluster, graph }) => checkCluster(cluster, graph)),
};

// The edges are found in src/plan/helm-order.ts, which `plan -o json` lists as implicitDependsOn too.
function checkCluster(cluster: ClusterModel, graph: Graph): Problem[] {
  return hiddenHelmOrders(cluster, graph, new Order(graph)).map(({ release: hr, target, tier, targetTier: u, deadlock }): Problem => {
    const id = refKey({ kind: 'HelmRelease', namespace: hr.namespace, name: hr.name });
    const base = { code: 'helmrelease-order' as const, file: hr.origin.file, line: hr.origin.line, object: id, cluster: cluster.name, tier, target: refKey(target) };
    const key = `${target.namespace}/${target.name}`;
    const installer = `${refKey(target)} in tier ${u}, which HelmReleases depend on`;
    if (deadlock) {
      return {
        ...base,
        severity: 'error',
        installer,
        message:
          `${id} (tier ${tier}) depends on HelmRelease ${key}, which tier ${u} applies, and ${u} can only run after ` +
          `${tier}, which waits for ${id} to be Ready: neither ever converges. Move one of the two releases, or drop ` +
          `wait on ${tier}.`,
      };
    }
    return {
      ...base,
      severity: 'warning',
      installer,
      message:
        `${id} (tier ${tier}) depends on HelmRelease ${key}, which tier ${u} applies, but ${tier} does not depend on ` +
        `${u}: a hidden order the tier graph does not show (helm-controller holds ${id} until ${u} happens to have ` +
        `run). Add ${dependsOnEntry(u, tier)} to ${tier}.`,
    };
  });
}
