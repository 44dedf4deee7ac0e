// Which HelmReleases probably install an API group's CRDs: a chart (or release) named like the group, as
// cert-manager installs cert-manager.io, external-secrets installs external-secrets.io, cilium installs cilium.io.
// A name match is a guess, so it only ever names a likely installer; generic labels (networking, monitoring...)
// never match, so a release called "gateway" is not taken for the Gateway API.
import type { ClusterModel, RenderedObject } from '../model/flux.js';
import { objectId } from '../model/ref.js';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

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

/** HelmReleases of the cluster whose name or chart matches a label of `group`. */
export function chartInstallers(cluster: ClusterModel, group: string): ChartInstaller[] {
  const labels = group.toLowerCase().split('.').filter((l) => !GENERIC.has(l));
  if (labels.length === 0) return [];
  const out: ChartInstaller[] = [];
  for (const o of cluster.objects) {
    if (o.kind !== 'HelmRelease' || !o.apiVersion.startsWith('helm.toolkit.fluxcd.io/')) continue;
    const hit = names(o, cluster.objects).find((n) => labels.includes(n) || labels.includes(trimSuffix(n)));
    if (hit) out.push({ release: objectId('HelmRelease', o.namespace, o.name), owner: o.owner, chart: hit });
  }
  return out;
}
