import type { PlanContext } from '../../plan/plan.js';
import type { Problem } from '../../model/problem.js';
import type { Rule } from '../rule.js';

// Clusters that tiers.yaml declares identical have the same Kustomizations and the same dependsOn edges: a tier
// added to one overlay and forgotten in the other is the drift that bites on the next rebuild.
export const clusterDriftRule: Rule = {
  code: 'cluster-drift',
  description: 'clusters declared identical have identical graphs',
  check: ({ clusters, config }) => {
    const byName = new Map(clusters.map((c) => [c.cluster.name, c]));
    const problems: Problem[] = [];
    const seen = new Set<string>();
    for (const [name, entry] of Object.entries(config.clusters)) {
      for (const other of entry.identicalTo) {
        const pair = [name, other].sort().join('\0');
        if (seen.has(pair)) continue;
        seen.add(pair);
        const a = byName.get(name);
        const b = byName.get(other);
        if (!a || !b) continue; // only the clusters selected for this run are compared
        const diff = graphDifference(a, b);
        if (diff.length === 0) continue;
        problems.push({
          code: 'cluster-drift',
          severity: 'error',
          message:
            `clusters ${name} and ${other} are declared identical (identicalTo) but their graphs differ:\n` +
            diff.map((l) => `    ${l}`).join('\n') +
            `\n  Make the overlays agree, or drop identicalTo if the difference is intended.`,
          file: null,
          line: null,
          object: null,
          cluster: name,
        });
      }
    }
    return problems;
  },
};

/** `- key` / `+ key` lines for nodes and `- a -> b` / `+ a -> b` for dependsOn edges, from a's side to b's. */
export function graphDifference(a: PlanContext, b: PlanContext): string[] {
  const nodesA = new Set(a.graph.nodes.keys());
  const nodesB = new Set(b.graph.nodes.keys());
  const edges = (p: PlanContext) => new Set([...p.graph.nodes.values()].flatMap((k) => k.dependsOn.map((d) => `${k.key} -> ${d.key}`)));
  const edgesA = edges(a);
  const edgesB = edges(b);
  const nameA = a.cluster.name;
  const nameB = b.cluster.name;
  return [
    ...[...nodesA].filter((k) => !nodesB.has(k)).sort().map((k) => `Kustomization ${k}: only in ${nameA}`),
    ...[...nodesB].filter((k) => !nodesA.has(k)).sort().map((k) => `Kustomization ${k}: only in ${nameB}`),
    ...[...edgesA].filter((e) => !edgesB.has(e)).sort().map((e) => `dependsOn ${e}: only in ${nameA}`),
    ...[...edgesB].filter((e) => !edgesA.has(e)).sort().map((e) => `dependsOn ${e}: only in ${nameB}`),
  ];
}
