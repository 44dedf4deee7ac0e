// What each entry of a ResourceSet's spec.dependsOn waits on, in the tier graph. flux-operator gets the object
// itself (any kind, `namespace` exactly as written) and, with `ready: true`, checks it is Ready; standup orders the
// ResourceSet after the tier that applies that object: a Kustomization or ResourceSet is itself a tier, any other
// object is its applier's. Flux's own CRDs exist before any tier; an object the entry path applies is applied by the
// root sync, before any tier too.
import { nodeKeyParts, type ClusterModel, type FluxResourceSet, type ResourceSetDependsOn } from '../model/flux.js';
import { groupOf, ksKey } from '../model/ref.js';

export interface ResolvedDependency {
  dep: ResourceSetDependsOn;
  /** `Kind/namespace/name` (or `Kind/name`) as written. */
  target: string;
  /** The tier the ResourceSet must follow for it, or null when none (see `how`). */
  tier: string | null;
  /**
   * `tier`: the target is a tier or a tier applies it; `entry`: the entry path applies it (the root sync, before
   * every tier); `flux`: one of Flux's or flux-operator's own CRDs; `no-namespace`: a namespaced kind written without
   * a namespace, which the operator never finds; `missing`: nothing in the cluster applies it; `with`: the
   * ResourceSet's own parent (or an ancestor) applies it, in the same apply as the ResourceSet: no tier order, the
   * operator polls until the object is there (and Ready).
   */
  how: 'tier' | 'entry' | 'flux' | 'no-namespace' | 'missing' | 'excluded' | 'with';
}

/** Kinds whose objects have no namespace (the built-in ones; a custom kind's scope is not known here). */
const CLUSTER_SCOPED = new Set([
  'CustomResourceDefinition', 'Namespace', 'ClusterRole', 'ClusterRoleBinding', 'PersistentVolume', 'StorageClass', 'PriorityClass',
  'ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration', 'APIService', 'IngressClass', 'RuntimeClass', 'CSIDriver', 'Node',
  'VolumeSnapshotClass', 'ClusterIssuer',
]);

/** Groups whose CRDs Flux (or flux-operator) installs with itself. */
const FLUX_CRD_GROUP = /(^|\.)toolkit\.fluxcd\.io$|^fluxcd\.controlplane\.io$/;

const isFluxKind = (apiVersion: string, kind: string, group: string) =>
  (kind === 'Kustomization' && group === 'kustomize.toolkit.fluxcd.io') || (kind === 'ResourceSet' && group === 'fluxcd.controlplane.io') || apiVersion === '';

/** `aboveRs`: the ResourceSet's parent and the parents above it. */
export function resolveResourceSetDeps(rs: FluxResourceSet, cluster: ClusterModel, isNode: (key: string) => boolean, exclude: ReadonlySet<string>, aboveRs: readonly string[] = []): ResolvedDependency[] {
  return rs.dependsOn.map((dep) => {
    const r = resolveOne(rs, dep, cluster, isNode, exclude);
    // Applied together with the ResourceSet (by its parent or above): waiting for that tier would wait for itself.
    if (r.how === 'tier' && r.tier !== null && aboveRs.includes(r.tier) && !(dep.kind === 'Kustomization' || dep.kind === 'ResourceSet')) return { ...r, tier: null, how: 'with' };
    return r;
  });
}

function resolveOne(rs: FluxResourceSet, dep: ResourceSetDependsOn, cluster: ClusterModel, isNode: (key: string) => boolean, exclude: ReadonlySet<string>): ResolvedDependency {
  {
    const group = groupOf(dep.apiVersion);
    const target = dep.namespace ? `${dep.kind}/${dep.namespace}/${dep.name}` : `${dep.kind}/${dep.name}`;
    const out = (tier: string | null, how: ResolvedDependency['how']): ResolvedDependency => ({ dep, target, tier, how });
    if (dep.kind === 'CustomResourceDefinition') {
      const crd = cluster.objects.find((o) => o.kind === 'CustomResourceDefinition' && o.name === dep.name);
      if (crd) return crd.owner === null ? out(null, 'entry') : out(crd.owner, 'tier');
      const crdGroup = dep.name.slice(dep.name.indexOf('.') + 1);
      return FLUX_CRD_GROUP.test(crdGroup) ? out(null, 'flux') : out(null, 'missing');
    }
    if (dep.namespace === null && !CLUSTER_SCOPED.has(dep.kind)) {
      // Flux objects and everything the model shows with a namespace are namespaced: never found by the operator.
      const namespaced = isFluxKind(dep.apiVersion, dep.kind, group) || cluster.objects.some((o) => o.kind === dep.kind && o.name === dep.name && o.namespace !== null);
      if (namespaced) return out(null, 'no-namespace');
    }
    if (dep.kind === 'Kustomization' && group === 'kustomize.toolkit.fluxcd.io') {
      const key = ksKey(dep.namespace ?? '', dep.name);
      if (exclude.has(key)) return out(null, 'excluded');
      return isNode(key) ? out(key, 'tier') : out(null, 'missing');
    }
    if (dep.kind === 'ResourceSet' && group === 'fluxcd.controlplane.io') {
      const key = `ResourceSet/${dep.namespace ?? ''}/${dep.name}`;
      if (exclude.has(key)) return out(null, 'excluded');
      return isNode(key) ? out(key, 'tier') : out(null, 'missing');
    }
    const obj = cluster.objects.find(
      (o) => o.kind === dep.kind && o.name === dep.name && (groupOf(o.apiVersion) === group || dep.apiVersion === '') && (o.namespace ?? ownerNamespace(o.owner)) === (dep.namespace ?? (o.namespace ?? ownerNamespace(o.owner))),
    );
    if (!obj) return out(null, 'missing');
    if (obj.owner === null) return out(null, 'entry');
    if (exclude.has(obj.owner)) return out(null, 'excluded');
    return out(obj.owner, 'tier');
  }
}

/** An object written without a namespace is in its applier's. */
const ownerNamespace = (owner: string | null): string => (owner === null ? 'flux-system' : nodeKeyParts(owner).namespace);
