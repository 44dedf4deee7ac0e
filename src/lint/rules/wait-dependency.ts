import { atKustomization, type Rule } from '../rule.js';

// A tier others depend on waits for health (wait: true or healthChecks): otherwise dependents start once it has
// merely applied, before what it applied is healthy (FLUX.md §4).
export const waitDependencyRule: Rule = {
  code: 'wait-dependency',
  description: 'a tier that others depend on waits for health',
  check: ({ clusters }) =>
    clusters.flatMap(({ cluster, graph }) =>
      [...graph.nodes.values()]
        .filter((ks) => !ks.wait && ks.healthChecks === 0 && (graph.dependents.get(ks.key)?.length ?? 0) > 0)
        .map((ks) => {
          const dependents = graph.dependents.get(ks.key)!;
          return atKustomization(
            'wait-dependency',
            'warning',
            cluster.name,
            ks,
            `${ks.key} has ${dependents.length} dependent(s) (${dependents.slice(0, 3).join(', ')}` +
              `${dependents.length > 3 ? ', …' : ''}) but neither wait: true nor healthChecks, so they start as soon ` +
              `as it has applied, not when what it applied is healthy. Add spec.wait: true or spec.healthChecks.`,
          );
        }),
    ),
};
