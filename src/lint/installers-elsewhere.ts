// What installs a CRD group in the repository's other clusters. "Nothing installs it" is said only when no cluster of
// the repository installs the group; otherwise a finding names where the repository does (the installer's tier may
// be missing from this cluster, or not expanded in it).
import type { Bootstrap } from '../model/bootstrap.js';
import type { ClusterModel } from '../model/flux.js';
import { installersOf, type Installers } from './installers.js';

/** `elsewhere(cluster, group)`: a release of a known chart or a CRD in git of another cluster, described; or null. */
export function installersElsewhere(clusters: readonly ClusterModel[], bootstrap: Bootstrap): (cluster: string, group: string) => string | null {
  const memo = new Map<string, { installers: Installers; crds: Map<string, string> }>();
  const of = (c: ClusterModel) => {
    let m = memo.get(c.name);
    if (!m) {
      const crds = new Map<string, string>();
      for (const o of c.objects) {
        const g = o.kind === 'CustomResourceDefinition' ? (o.raw.spec as { group?: unknown } | undefined)?.group : null;
        if (typeof g === 'string' && !crds.has(g)) crds.set(g, `CRD ${o.name} in ${o.owner ? `tier ${o.owner}` : 'the entry path'} of cluster ${c.name}`);
      }
      memo.set(c.name, (m = { installers: installersOf(c, bootstrap), crds }));
    }
    return m;
  };
  return (cluster, group) => {
    for (const c of clusters) {
      if (c.name === cluster) continue;
      const { installers, crds } = of(c);
      const r = installers.releases(group)[0];
      if (r) return `${r.release} (chart ${r.chart}) in ${r.owner ? `tier ${r.owner}` : 'the entry path'} of cluster ${c.name}`;
      const crd = crds.get(group);
      if (crd) return crd;
    }
    return null;
  };
}
