import { parseKsKey } from '../../model/ref.js';
import type { Problem, Severity } from '../../model/problem.js';
import { atKustomization, type LintInput, type Rule } from '../rule.js';

// Every dependsOn names a Kustomization the cluster defines: otherwise Flux waits forever on `dependency ... not found`.
export const missingDependencyRule: Rule = {
  code: 'missing-dependency',
  description: 'every dependsOn target exists in the cluster',
  check: ({ clusters }) => [...kustomizationDeps(clusters), ...resourceSetDeps(clusters)],
};

function kustomizationDeps(clusters: LintInput['clusters']): Problem[] {
  return clusters.flatMap(({ cluster, graph }) =>
      graph.missing.map(({ from, to, line }) => {
        const ks = graph.nodes.get(from)!;
        const { name } = parseKsKey(to);
        const sameName = [...graph.nodes.keys()].filter((k) => parseKsKey(k).name === name);
        const hint =
          sameName.length > 0
            ? ` A Kustomization named ${name} exists as ${sameName.join(', ')}: set dependsOn[].namespace.`
            : ' Add it to the cluster, or remove the dependsOn entry.';
        return { ...atKustomization(
          'missing-dependency',
          'error',
          cluster.name,
          ks,
          `${from} depends on ${to}, which cluster ${cluster.name} does not define; Flux would report ` +
            `"dependency '${to}' not found" and never apply ${from}.${hint}`,
          line ?? ks.origin.line,
        ), target: to };
      }),
  );
}

/**
 * A ResourceSet's dependsOn is read by flux-operator with the namespace as written and retried every 5s while the
 * object is not there: a Kustomization or ResourceSet nobody defines, or a namespaced object named without a
 * namespace, holds it forever (error). Another kind nothing in the repository applies may come from elsewhere (a
 * chart, the platform), so that is a warning, and only when every tier was read.
 */
function resourceSetDeps(clusters: LintInput['clusters']): Problem[] {
  const out: Problem[] = [];
  for (const { cluster, graph } of clusters) {
    for (const [key, deps] of graph.resourceSetDeps) {
      const rs = graph.resourceSets.get(key)!;
      const object = `ResourceSet/${rs.namespace}/${rs.name}`;
      for (const d of deps) {
        const at = (severity: Severity, message: string): Problem => ({ code: 'missing-dependency', severity, message, file: rs.origin.file, line: d.dep.line ?? rs.origin.line, object, cluster: cluster.name });
        const id = `${d.dep.apiVersion}/${d.target}`;
        if (d.how === 'no-namespace') {
          out.push(at('error', `${object} depends on ${id} without a namespace; flux-operator does not default it to the ResourceSet's ` +
            `and reports "dependency ${id} not found: an empty namespace may not be set" forever. Set dependsOn[].namespace.`));
        } else if (d.how === 'missing' && (d.dep.kind === 'Kustomization' || d.dep.kind === 'ResourceSet')) {
          out.push(at('error', `${object} depends on ${d.target}, which cluster ${cluster.name} does not define; flux-operator would retry ` +
            `"dependency ${id} not found" every 5s and never apply ${object}. Add it to the cluster, or remove the dependsOn entry.`));
        } else if (d.how === 'missing' && cluster.objectsComplete !== false) {
          out.push(at('warning', `${object} depends on ${d.target}, which nothing in cluster ${cluster.name} applies; flux-operator waits ` +
            `until it exists. If it is installed another way (before Flux, by an operator), suppress this finding with that reason.`));
        }
      }
    }
  }
  return out;
}
