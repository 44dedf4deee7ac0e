// Which Helm charts install which CRD API groups: what `check` knows about a HelmRelease (or a bootstrap helmfile
// release) without rendering its chart. Keyed by the chart's name as its repository publishes it: the last path
// segment of `spec.chart.spec.chart`, of an OCIRepository's URL, or of a helmfile `chart:`.
//
// Data, kept by hand from each chart's crds/ and templates (test/lint/check-inputs.test.ts keeps it well-formed).
// A chart that ships no CRDs of its own (rook-ceph-cluster, app-template) is listed with no groups, so that it is
// never taken for an installer by its name. Add a chart here before relying on name matching.

export interface ChartCrds {
  /** Chart names, lower case: the published name first, then other names the same chart is published under. */
  charts: readonly string[];
  /** The CRD API groups its CRDs belong to. */
  groups: readonly string[];
}

export const CHART_CRDS: readonly ChartCrds[] = [
  // Monitoring
  { charts: ['kube-prometheus-stack', 'kube-prometheus'], groups: ['monitoring.coreos.com'] },
  { charts: ['prometheus-operator-crds', 'prometheus-operator'], groups: ['monitoring.coreos.com'] },
  { charts: ['victoria-metrics-k8s-stack', 'victoria-metrics-operator', 'victoria-metrics-operator-crds'], groups: ['operator.victoriametrics.com'] },
  { charts: ['grafana-operator'], groups: ['grafana.integreatly.org'] },
  { charts: ['grafana-agent-operator'], groups: ['monitoring.grafana.com'] },
  { charts: ['opentelemetry-operator'], groups: ['opentelemetry.io'] },
  { charts: ['jaeger-operator'], groups: ['jaegertracing.io'] },
  { charts: ['silence-operator'], groups: ['observability.giantswarm.io', 'monitoring.giantswarm.io'] },
  // Certificates, secrets, policy
  { charts: ['cert-manager'], groups: ['cert-manager.io', 'acme.cert-manager.io'] },
  { charts: ['trust-manager'], groups: ['trust.cert-manager.io'] },
  { charts: ['external-secrets'], groups: ['external-secrets.io', 'generators.external-secrets.io'] },
  { charts: ['connect', 'onepassword-connect'], groups: ['onepassword.com'] },
  { charts: ['sealed-secrets'], groups: ['bitnami.com'] },
  { charts: ['vault-secrets-operator'], groups: ['secrets.hashicorp.com'] },
  { charts: ['secrets-store-csi-driver'], groups: ['secrets-store.csi.x-k8s.io'] },
  { charts: ['kyverno'], groups: ['kyverno.io', 'reports.kyverno.io', 'wgpolicyk8s.io', 'policies.kyverno.io'] },
  { charts: ['kyverno-policies', 'default-kyverno-cluster-policies'], groups: [] },
  { charts: ['trivy-operator'], groups: ['aquasecurity.github.io'] },
  { charts: ['capsule'], groups: ['capsule.clastix.io'] },
  // Networking
  { charts: ['cilium'], groups: ['cilium.io'] },
  { charts: ['tigera-operator'], groups: ['operator.tigera.io', 'crd.projectcalico.org'] },
  { charts: ['gateway-helm', 'envoy-gateway', 'gateway-crds-helm'], groups: ['gateway.envoyproxy.io', 'gateway.networking.k8s.io'] },
  { charts: ['gateway-api', 'gateway-api-crds'], groups: ['gateway.networking.k8s.io'] },
  { charts: ['external-dns'], groups: ['externaldns.k8s.io'] },
  { charts: ['multus', 'multus-cni'], groups: ['k8s.cni.cncf.io'] },
  { charts: ['metallb'], groups: ['metallb.io'] },
  { charts: ['traefik', 'traefik-crds'], groups: ['traefik.io', 'traefik.containo.us'] },
  { charts: ['tailscale-operator'], groups: ['tailscale.com'] },
  { charts: ['base', 'istio-base'], groups: ['networking.istio.io', 'security.istio.io', 'telemetry.istio.io', 'extensions.istio.io'] },
  { charts: ['linkerd-crds'], groups: ['linkerd.io', 'policy.linkerd.io'] },
  { charts: ['ingress-nginx', 'istiod', 'ztunnel', 'cni', 'coredns', 'spegel', 'cloudflare-tunnel', 'k8s-gateway'], groups: [] },
  // Storage and backup
  { charts: ['rook-ceph'], groups: ['ceph.rook.io', 'objectbucket.io'] },
  { charts: ['rook-ceph-cluster', 'ceph-csi-rbd', 'ceph-csi-cephfs', 'ceph-csi-drivers', 'csi-driver-nfs', 'democratic-csi'], groups: [] },
  { charts: ['longhorn'], groups: ['longhorn.io'] },
  { charts: ['openebs'], groups: ['openebs.io'] },
  { charts: ['snapshot-controller'], groups: ['snapshot.storage.k8s.io', 'groupsnapshot.storage.k8s.io'] },
  { charts: ['volsync', 'volsync-perfectra1n'], groups: ['volsync.backube'] },
  { charts: ['velero'], groups: ['velero.io'] },
  { charts: ['k8up'], groups: ['k8up.io'] },
  { charts: ['kopiur'], groups: ['kopiur.home-operations.com'] },
  { charts: ['minio-operator', 'operator'], groups: ['minio.min.io'] },
  // Databases and queues
  { charts: ['cloudnative-pg'], groups: ['postgresql.cnpg.io'] },
  { charts: ['plugin-barman-cloud'], groups: ['barmancloud.cnpg.io'] },
  { charts: ['postgres-operator'], groups: ['acid.zalan.do'] },
  { charts: ['mariadb-operator', 'mariadb-operator-crds'], groups: ['k8s.mariadb.com'] },
  { charts: ['dragonfly-operator'], groups: ['dragonflydb.io'] },
  { charts: ['emqx-operator'], groups: ['apps.emqx.io'] },
  { charts: ['strimzi-kafka-operator'], groups: ['kafka.strimzi.io', 'core.strimzi.io'] },
  { charts: ['redis', 'valkey', 'memcached'], groups: [] },
  // Cluster operations
  { charts: ['vpa', 'vertical-pod-autoscaler'], groups: ['autoscaling.k8s.io'] },
  { charts: ['keda'], groups: ['keda.sh', 'eventing.keda.sh'] },
  { charts: ['node-feature-discovery'], groups: ['nfd.k8s-sigs.io'] },
  { charts: ['tuppr'], groups: ['tuppr.home-operations.com'] },
  { charts: ['system-upgrade-controller'], groups: ['upgrade.cattle.io'] },
  { charts: ['gha-runner-scale-set-controller'], groups: ['actions.github.com'] },
  { charts: ['actions-runner-controller'], groups: ['actions.summerwind.dev'] },
  { charts: ['gha-runner-scale-set'], groups: [] },
  { charts: ['tofu-controller', 'tf-controller'], groups: ['infra.contrib.fluxcd.io'] },
  { charts: ['flux-operator'], groups: ['fluxcd.controlplane.io'] },
  { charts: ['flux2'], groups: ['source.toolkit.fluxcd.io', 'kustomize.toolkit.fluxcd.io', 'helm.toolkit.fluxcd.io', 'notification.toolkit.fluxcd.io', 'image.toolkit.fluxcd.io'] },
  { charts: ['crossplane'], groups: ['pkg.crossplane.io', 'apiextensions.crossplane.io'] },
  { charts: ['argo-cd'], groups: ['argoproj.io'] },
  { charts: ['argo-workflows'], groups: ['argoproj.io'] },
  { charts: ['intel-device-plugins-operator'], groups: ['deviceplugin.intel.com'] },
  { charts: ['gpu-operator'], groups: ['nvidia.com'] },
  { charts: ['toolhive-operator-crds'], groups: ['toolhive.stacklok.dev'] },
  { charts: ['llmkube'], groups: ['inference.llmkube.dev'] },
  {
    charts: ['eck-operator', 'eck-operator-crds'],
    groups: ['elasticsearch.k8s.elastic.co', 'kibana.k8s.elastic.co', 'apm.k8s.elastic.co', 'beat.k8s.elastic.co', 'agent.k8s.elastic.co', 'logstash.k8s.elastic.co'],
  },
  // Charts that install no CRDs (listed so that their names are never matched against a group).
  { charts: ['app-template', 'podinfo', 'metrics-server', 'reloader', 'descheduler', 'kube-state-metrics', 'prometheus-adapter', 'flux-instance', 'headlamp', 'kubelet-csr-approver', 'reflector', 'grafana', 'loki', 'tempo', 'promtail', 'vector', 'fluent-bit'], groups: [] },
];

const byChart = new Map<string, ChartCrds>();
for (const entry of CHART_CRDS) for (const c of entry.charts) if (!byChart.has(c)) byChart.set(c, entry);

/** The table's entry for a chart name (any case, any registry prefix), or undefined when the chart is not known. */
export function chartEntry(chart: string): ChartCrds | undefined {
  return byChart.get(chartKey(chart));
}

/** `oci://ghcr.io/x/charts/cert-manager:v1` and `jetstack/cert-manager` -> `cert-manager`. */
export function chartKey(chart: string): string {
  return chart.trim().replace(/\/+$/, '').split('/').pop()!.replace(/[:@].*$/, '').toLowerCase();
}
