// Cluster DNS as a distribution ships it: the kube-system/coredns Deployment and the kube-dns Service (at the slot's
// DNS address, which kubelet writes into every pod's resolv.conf), from the locally built CoreDNS image. It answers
// for cluster.local (and reverse zones) only: no `forward`, so nothing resolves names outside the cluster.
import type { KubernetesObject } from '@kubernetes/client-node';

export const COREDNS_IMAGE_NAME = 'registry.k8s.io/coredns/coredns';

export const COREFILE = `.:53 {
    errors
    health :8080
    ready :8181
    kubernetes cluster.local in-addr.arpa ip6.arpa {
        pods insecure
        fallthrough in-addr.arpa ip6.arpa
        ttl 30
    }
    cache 30
    loop
    reload
}
`;

export function corednsManifests(o: { image: string; clusterIp: string }): (KubernetesObject & Record<string, unknown>)[] {
  const ns = 'kube-system';
  const labels = { 'k8s-app': 'kube-dns' };
  return [
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'coredns', namespace: ns } },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'system:coredns' },
      rules: [
        { apiGroups: [''], resources: ['endpoints', 'services', 'pods', 'namespaces'], verbs: ['list', 'watch'] },
        { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: ['list', 'watch'] },
      ],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'system:coredns' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:coredns' },
      subjects: [{ kind: 'ServiceAccount', name: 'coredns', namespace: ns }],
    },
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'coredns', namespace: ns }, data: { Corefile: COREFILE } },
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'coredns', namespace: ns, labels },
      spec: {
        replicas: 1,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: {
            serviceAccountName: 'coredns',
            // CoreDNS must not resolve through itself.
            dnsPolicy: 'Default',
            terminationGracePeriodSeconds: 1,
            containers: [
              {
                name: 'coredns',
                image: o.image,
                imagePullPolicy: 'IfNotPresent',
                args: ['-conf', '/etc/coredns/Corefile'],
                ports: [
                  { name: 'dns', containerPort: 53, protocol: 'UDP' },
                  { name: 'dns-tcp', containerPort: 53, protocol: 'TCP' },
                ],
                readinessProbe: { httpGet: { path: '/ready', port: 8181 }, periodSeconds: 1 },
                livenessProbe: { httpGet: { path: '/health', port: 8080 }, periodSeconds: 10 },
                volumeMounts: [{ name: 'config', mountPath: '/etc/coredns', readOnly: true }],
              },
            ],
            volumes: [{ name: 'config', configMap: { name: 'coredns' } }],
          },
        },
      },
    },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'kube-dns', namespace: ns, labels: { ...labels, 'kubernetes.io/name': 'CoreDNS' } },
      spec: {
        clusterIP: o.clusterIp,
        selector: labels,
        ports: [
          { name: 'dns', port: 53, protocol: 'UDP', targetPort: 53 },
          { name: 'dns-tcp', port: 53, protocol: 'TCP', targetPort: 53 },
        ],
      },
    },
  ];
}
