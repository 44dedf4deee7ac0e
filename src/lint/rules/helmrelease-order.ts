import type { ClusterModel, RenderedObject } from '../../model/flux.js';
import type { Problem } from '../../model/problem.js';
import { objectId } from '../../model/ref.js';
import { dependsOnEntry, Order } from '../order.js';
import type { Rule } from '../rule.js';

// A HelmRelease's spec.dependsOn on a HelmRelease that another tier applies is an order the tier graph does not
// show: helm-controller holds the release until its dependency is Ready, whenever that tier happens to run. Fine
// when the dependency's tier runs first (dependsOn, or an ancestor); a hidden order (warning) otherwise; a deadlock
// (error) when that tier can only run after this one and this one waits for its HelmRelease (wait/healthChecks).

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export const helmReleaseOrderRule: Rule = {
  code: 'helmrelease-order',
  description: "a HelmRelease's dependsOn is reachable through its tier's Kustomization dependsOn",
  check: ({ clusters }) => clusters.flatMap(({ cluster, graph }) => checkCluster(cluster, new Order(graph), graph.nodes)),
};

function checkCluster(cluster: ClusterModel, order: Order, nodes: Map<string, { wait: boolean; healthChecks: number }>): Problem[] {
  const releases = cluster.objects.filter((o) => o.kind === 'HelmRelease' && o.apiVersion.startsWith('helm.toolkit.fluxcd.io/'));
  const byKey = new Map<string, RenderedObject[]>();
  for (const r of releases) byKey.set(`${r.namespace}/${r.name}`, [...(byKey.get(`${r.namespace}/${r.name}`) ?? []), r]);
  const out: Problem[] = [];
  for (const hr of releases) {
    const tier = hr.owner;
    if (tier === null || !nodes.has(tier)) continue;
    const deps = ((hr.raw as Obj).spec?.dependsOn ?? []) as { name?: unknown; namespace?: unknown }[];
    for (const d of Array.isArray(deps) ? deps : []) {
      if (typeof d?.name !== 'string') continue;
      const key = `${typeof d.namespace === 'string' ? d.namespace : hr.namespace}/${d.name}`;
      const targets = byKey.get(key) ?? [];
      const id = objectId('HelmRelease', hr.namespace, hr.name);
      const base = { code: 'helmrelease-order' as const, file: hr.origin.file, line: hr.origin.line, object: id, cluster: cluster.name, tier };
      if (targets.length === 0) continue; // a release applied from elsewhere (another source): nothing to say
      const owners = targets.map((t) => t.owner);
      if (owners.some((u) => u === null || u === tier || order.ready(tier).has(u) || order.applied(tier).has(u))) continue;
      const u = owners.find((o): o is string => o !== null)!;
      const installer = `HelmRelease/${key} in tier ${u}, which HelmReleases depend on`;
      const waits = (nodes.get(tier)?.wait ?? false) || (nodes.get(tier)?.healthChecks ?? 0) > 0;
      if (order.blockedBy(u, tier) && waits) {
        out.push({
          ...base,
          severity: 'error',
          installer,
          message:
            `${id} (tier ${tier}) depends on HelmRelease ${key}, which tier ${u} applies, and ${u} can only run after ` +
            `${tier}, which waits for ${id} to be Ready: neither ever converges. Move one of the two releases, or drop ` +
            `wait on ${tier}.`,
        });
        continue;
      }
      out.push({
        ...base,
        severity: 'warning',
        installer,
        message:
          `${id} (tier ${tier}) depends on HelmRelease ${key}, which tier ${u} applies, but ${tier} does not depend on ` +
          `${u}: a hidden order the tier graph does not show (helm-controller holds ${id} until ${u} happens to have ` +
          `run). Add ${dependsOnEntry(u, tier)} to ${tier}.`,
      });
    }
  }
  return out;
}
