// Which HelmReleases probably install an API group's CRDs: a chart (or release) named like the group, as
// cert-manager installs cert-manager.io, external-secrets installs external-secrets.io, cilium installs cilium.io.
// A name match is a guess, so it only ever names a likely installer; generic labels (networking, monitoring...)
// never match, so a release called "gateway" is not taken for the Gateway API.
import type { ClusterModel, RenderedObject } from '../model/flux.js';
import { refKey } from '../model/ref.js';
import type { Obj } from '../model/k8s.js';


export interface ChartInstaller {
  /** HelmRelease/namespace/name */
  release: string;
  /** The tier that applies the HelmRelease (null: the entry path). */
  owner: string | null;
  /** The name that matched the group. */
  chart: string;
}

const GENERIC = new Set([
  'io', 'com', 'org', 'net', 'dev', 'sh', 'app', 'cloud', 'ai', 'co', 'tech', 'k8s', 'x-k8s', 'kubernetes',
  'networking', 'gateway', 'monitoring', 'storage', 'policy', 'config', 'apps', 'api', 'core', 'operator', 'toolkit',
  'extensions', 'crd', 'crds',
]);

const trimSuffix = (n: string): string => n.replace(/-(operator|controller|crds|chart)$/, '');

/** The names a HelmRelease goes by: its own, its releaseName, its chart's, and an OCI chart's repository name. */
function names(hr: RenderedObject, objects: readonly RenderedObject[]): string[] {
  const spec = ((hr.raw as Obj).spec ?? {}) as Obj;
  const out = [hr.name, spec.releaseName, spec.chart?.spec?.chart];
  const ref = spec.chartRef as Obj | undefined;
  if (ref?.kind === 'OCIRepository' && typeof ref.name === 'string') {
    out.push(ref.name);
    const ns = ref.namespace ?? hr.namespace;
    const repo = objects.find((o) => o.kind === 'OCIRepository' && o.name === ref.name && (o.namespace === ns || ns === null));
    const url = ((repo?.raw as Obj | undefined)?.spec?.url ?? '') as string;
    if (url) out.push(url.replace(/\/+$/, '').split('/').pop());
  }
  return [...new Set(out.filter((n): n is string => typeof n === 'string' && n !== '').map((n) => n.split('/').pop()!.toLowerCase()))];
}

/**
 * A lookup of the cluster's HelmReleases whose name or chart matches a label of a group. The releases' names are
 * gathered once per cluster, on the first question, not once per group asked about.
 */
export function chartInstallers(cluster: ClusterModel): (group: string) => ChartInstaller[] {
  let releases: { release: string; owner: string | null; names: string[] }[] | undefined;
  return (group) => {
    const labels = group.toLowerCase().split('.').filter((l) => !GENERIC.has(l));
    if (labels.length === 0) return [];
    releases ??= cluster.objects
      .filter((o) => o.kind === 'HelmRelease' && o.apiVersion.startsWith('helm.toolkit.fluxcd.io/'))
      .map((o) => ({ release: refKey({ kind: 'HelmRelease', namespace: o.namespace, name: o.name }), owner: o.owner, names: names(o, cluster.objects) }));
    const out: ChartInstaller[] = [];
    for (const r of releases) {
      const hit = r.names.find((n) => labels.includes(n) || labels.includes(trimSuffix(n)));
      if (hit) out.push({ release: r.release, owner: r.owner, chart: hit });
    }
    return out;
  };
}
