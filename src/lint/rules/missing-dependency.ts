import { splitKey } from '../../model/ref.js';
import { atKustomization, type Rule } from '../rule.js';

// Every dependsOn names a Kustomization the cluster defines: otherwise Flux waits forever on `dependency ... not found`.
export const missingDependencyRule: Rule = {
  code: 'missing-dependency',
  description: 'every dependsOn target exists in the cluster',
  check: ({ clusters }) =>
    clusters.flatMap(({ cluster, graph }) =>
      graph.missing.map(({ from, to, line }) => {
        const ks = graph.nodes.get(from)!;
        const { name } = splitKey(to);
        const sameName = [...graph.nodes.keys()].filter((k) => splitKey(k).name === name);
        const hint =
          sameName.length > 0
            ? ` A Kustomization named ${name} exists as ${sameName.join(', ')}: set dependsOn[].namespace.`
            : ' Add it to the cluster, or remove the dependsOn entry.';
        return atKustomization(
          'missing-dependency',
          'error',
          cluster.name,
          ks,
          `${from} depends on ${to}, which cluster ${cluster.name} does not define; Flux would report ` +
            `"dependency '${to}' not found" and never apply ${from}.${hint}`,
          line ?? ks.origin.line,
        );
      }),
    ),
};
