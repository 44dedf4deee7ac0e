// Helm's ownership metadata on the objects standup renders from a chart and applies itself.
//
// Why: the repository usually also holds a HelmRelease (or helmfile release) of the same chart, which helm-controller
// installs once Flux runs. helm install and upgrade refuse an object that already exists unless it looks like the
// release's own: helm v4's action.existingResourceConflict (pkg/action/validate.go) calls checkOwnership, which
// requires the label app.kubernetes.io/managed-by=Helm and the annotations meta.helm.sh/release-name and
// meta.helm.sh/release-namespace equal to the release's name and namespace; any one missing or different is "exists
// and cannot be imported into the current release: invalid ownership metadata". With them, helm adopts the objects
// standup applied (updates them in place) instead of failing the HelmRelease. The values are those the repository's
// HelmRelease or helmfile gives the release (chart-source.ts), so that the later install is the one that adopts.
// CRDs from a chart's crds/ directory get them too: helm never manages those (it creates them when absent and skips
// them otherwise), so the metadata is harmless there and keeps every object of the render alike.
import type { K8sObject } from '../model/k8s.js';

export const HELM_MANAGED_BY = 'app.kubernetes.io/managed-by';
export const HELM_RELEASE_NAME = 'meta.helm.sh/release-name';
export const HELM_RELEASE_NAMESPACE = 'meta.helm.sh/release-namespace';

/** The objects, each with helm's ownership label and annotations for `release` in `namespace` (copies; the input is untouched). */
export function withHelmOwnership(objects: readonly K8sObject[], release: string, namespace: string): K8sObject[] {
  return objects.map((o) => ({
    ...o,
    metadata: {
      ...o.metadata,
      labels: { ...(o.metadata.labels ?? {}), [HELM_MANAGED_BY]: 'Helm' },
      annotations: { ...(o.metadata.annotations ?? {}), [HELM_RELEASE_NAME]: release, [HELM_RELEASE_NAMESPACE]: namespace },
    },
  }));
}
