// The CRD groups a Kubernetes distribution serves on its own, before any tier runs: a resource of one of these
// groups needs no installer in git when the cluster runs on that platform (tiers.yaml `platform:`, or inferred).
// Only groups the distribution installs by default are listed; an optional add-on (GKE's Gateway API, an EKS
// add-on) is not, as a cluster without it would deadlock in silence.

export const PLATFORMS = ['talos', 'k3s', 'rke2', 'openshift', 'gke', 'eks', 'aks'] as const;
export type Platform = (typeof PLATFORMS)[number];

export const PLATFORM_GROUPS: Record<Platform, readonly string[]> = {
  // Talos' API access feature (machine.features.kubernetesTalosAPIAccess) serves serviceaccounts.talos.dev.
  talos: ['talos.dev'],
  // k3s' helm-controller and its packaged Traefik.
  k3s: ['helm.cattle.io', 'k3s.cattle.io', 'traefik.io', 'traefik.containo.us'],
  rke2: ['helm.cattle.io', 'k3s.cattle.io'],
  openshift: [
    'config.openshift.io', 'operator.openshift.io', 'route.openshift.io', 'security.openshift.io', 'image.openshift.io',
    'apps.openshift.io', 'build.openshift.io', 'template.openshift.io', 'project.openshift.io', 'user.openshift.io',
    'oauth.openshift.io', 'quota.openshift.io', 'console.openshift.io', 'machine.openshift.io',
    'machineconfiguration.openshift.io', 'network.openshift.io', 'imageregistry.operator.openshift.io',
    'monitoring.coreos.com', 'operators.coreos.com', 'packages.operators.coreos.com', 'snapshot.storage.k8s.io',
    'k8s.cni.cncf.io',
  ],
  gke: ['cloud.google.com', 'networking.gke.io', 'monitoring.googleapis.com', 'nodemanagement.gke.io', 'snapshot.storage.k8s.io'],
  eks: ['vpcresources.k8s.aws', 'crd.k8s.amazonaws.com', 'networking.k8s.aws'],
  aks: ['snapshot.storage.k8s.io'],
};
