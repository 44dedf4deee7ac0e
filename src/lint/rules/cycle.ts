import { findCycles } from '../../graph/cycles.js';
import { atKustomization, type Rule } from '../rule.js';

// No dependsOn cycle: Flux never detects one, the tiers just wait on each other forever (FLUX.md §1).
export const cycleRule: Rule = {
  code: 'cycle',
  description: 'dependsOn has no cycle',
  check: ({ clusters }) =>
    clusters.flatMap(({ cluster, graph }) =>
      findCycles(graph).map((path) => {
        const first = graph.nodes.get(path[0]!)!;
        const dependency = path[1]!;
        const line = first.dependsOn.find((d) => d.key === dependency)?.line ?? first.origin.line;
        return { ...atKustomization(
          'cycle',
          'error',
          cluster.name,
          first,
          `dependency cycle: ${path.join(' -> ')}. Flux would leave every tier on it DependencyNotReady forever; ` +
            `remove one of these dependsOn entries.`,
          line,
        ), target: path.join(' -> ') };
      }),
    ),
};
