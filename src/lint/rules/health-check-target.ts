import type { ClusterModel } from '../../model/flux.js';
import type { Problem } from '../../model/problem.js';
import { groupOf, refKey } from '../../model/ref.js';
import { atKustomization, type Rule } from '../rule.js';
import type { Obj } from '../../model/k8s.js';

// Every healthChecks entry names an object some tier creates. A wrong namespace makes Flux wait out the timeout
// on every cold start. Objects a chart renders (a Deployment of a HelmRelease) are not in git, so only an entry with
// a near match elsewhere, or one for a Flux object (which only git creates), is reported.


export const healthCheckTargetRule: Rule = {
  code: 'health-check-target',
  description: 'every healthChecks entry names an object that a tier creates',
  check: ({ clusters }) => clusters.flatMap(({ cluster }) => checkCluster(cluster)),
};

function checkCluster(cluster: ClusterModel): Problem[] {
  const out: Problem[] = [];
  const unexpanded = cluster.kustomizations.some((k) => k.repoPath === null);
  for (const ks of cluster.kustomizations) {
    const checks = ((ks.raw as Obj).spec?.healthChecks ?? []) as Obj[];
    if (!Array.isArray(checks)) continue;
    for (const hc of checks) {
      if (typeof hc?.kind !== 'string' || typeof hc?.name !== 'string') continue;
      const ns = typeof hc.namespace === 'string' ? hc.namespace : null;
      const sameKind = cluster.objects.filter((o) => o.kind === hc.kind && (typeof hc.apiVersion !== 'string' || groupOf(o.apiVersion) === groupOf(hc.apiVersion)));
      if (sameKind.some((o) => o.name === hc.name && (ns === null || o.namespace === ns || o.namespace === null))) continue;
      const want = refKey({ kind: hc.kind, namespace: ns, name: hc.name });
      const near = sameKind.filter((o) => o.name === hc.name).map((o) => refKey(o));
      const flux = typeof hc.apiVersion === 'string' && /\.toolkit\.fluxcd\.io\//.test(hc.apiVersion);
      if (near.length === 0 && (!flux || unexpanded)) continue;
      const hint = near.length ? `; ${near.join(', ')} exists: fix the namespace` : ': fix the name or namespace, or remove the entry';
      out.push({ ...atKustomization('health-check-target', 'warning', cluster.name, ks,
        `${ks.key} health-checks ${want}, which no tier creates${hint}. Flux waits for it until the timeout ` +
        `(${ks.timeout ?? ks.interval ?? 'the interval'}) on every reconcile, so ${ks.key} never becomes Ready.`), target: want });
    }
  }
  return out;
}
