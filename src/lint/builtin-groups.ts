import type { InstalledFlux } from '../model/flux-versions.js';

/**
 * API groups the kube-apiserver serves itself: their kinds never need a CRD. Listed explicitly, because "ends in
 * .k8s.io" is wrong: snapshot.storage.k8s.io and gateway.networking.k8s.io are CRDs.
 */
const KUBERNETES_GROUPS = new Set([
  '',
  'admissionregistration.k8s.io',
  'apiextensions.k8s.io',
  'apiregistration.k8s.io',
  'apps',
  'authentication.k8s.io',
  'authorization.k8s.io',
  'autoscaling',
  'batch',
  'certificates.k8s.io',
  'coordination.k8s.io',
  'discovery.k8s.io',
  'events.k8s.io',
  'flowcontrol.apiserver.k8s.io',
  'internal.apiserver.k8s.io',
  'networking.k8s.io',
  'node.k8s.io',
  'policy',
  'rbac.authorization.k8s.io',
  'resource.k8s.io',
  'scheduling.k8s.io',
  'storage.k8s.io',
  'storagemigration.k8s.io',
]);

/** Groups whose CRDs the Flux install (or the Flux Operator) brings before any tier runs. */
const FLUX_GROUPS = /(^|\.)toolkit\.fluxcd\.io$|^fluxcd\.controlplane\.io$/;

export const isBuiltinGroup = (group: string): boolean => KUBERNETES_GROUPS.has(group);
export const isFluxGroup = (group: string): boolean => FLUX_GROUPS.test(group);

/** The CRD groups of Flux's optional controllers, which a FluxInstance installs when its components list them. */
const COMPONENT_GROUPS: Record<string, string> = { 'source-watcher': 'source.extensions.fluxcd.io' };

/** Groups the cluster's FluxInstance (or flux-instance chart values) installs through its listed optional components. */
export function fluxComponentGroups(installs: readonly InstalledFlux[], cluster: string): Set<string> {
  const out = new Set<string>();
  for (const f of installs) {
    if (f.cluster !== null && f.cluster !== cluster) continue;
    for (const c of f.components ?? []) if (COMPONENT_GROUPS[c]) out.add(COMPONENT_GROUPS[c]);
  }
  return out;
}
