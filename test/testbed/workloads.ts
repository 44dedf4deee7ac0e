// Workloads of the testbed's own images, for tests and the example: Deployments whose readiness the manifest sets,
// and the CDI-like operator as a real pod.
import { readFileSync } from 'node:fs';
import { AppsV1Api, CoreV1Api, type KubeConfig, type KubernetesObject, type V1Deployment, type V1Pod } from '@kubernetes/client-node';
import { APP_IMAGE, CDI_OPERATOR_IMAGE } from './node/images.js';
import { apply } from './kube.js';
import { pollUntil } from './wait.js';

export type Manifest = KubernetesObject & Record<string, unknown>;

/** A Deployment of the app image: Available after `readyAfter` seconds (or never), with a Service on port 80. */
export function appWorkload(name: string, namespace: string, o: { replicas?: number; readyAfter?: string; message?: string } = {}): Manifest[] {
  const labels = { app: name };
  return [
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name, namespace, labels },
      spec: {
        replicas: o.replicas ?? 1,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: {
            terminationGracePeriodSeconds: 2,
            containers: [
              {
                name: 'app',
                image: APP_IMAGE,
                imagePullPolicy: 'IfNotPresent',
                env: [
                  { name: 'READY_AFTER', value: o.readyAfter ?? '1' },
                  { name: 'MESSAGE', value: o.message ?? name },
                ],
                ports: [{ containerPort: 8080, name: 'http' }],
                readinessProbe: { httpGet: { path: '/healthz', port: 'http' }, periodSeconds: 1 },
              },
            ],
          },
        },
      },
    },
    { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace }, spec: { selector: labels, ports: [{ port: 80, targetPort: 'http' }] } },
  ];
}

export interface CdiOperatorOptions {
  namespace?: string;
  /** Only CDIs with these names trigger it (tests share a cluster). */
  names?: string[];
  delay?: string;
  /** CRD manifests it installs, as files: `<crd name>.yaml` -> YAML. */
  crds: Record<string, string>;
  /** Name of the Deployment (and its ServiceAccount, ConfigMap, ClusterRole); default cdi-operator. */
  name?: string;
}

/** The CDI-like operator (go/apps/cdi-operator) as a Deployment, with the RBAC it needs. */
export function cdiOperatorManifests(o: CdiOperatorOptions): Manifest[] {
  const ns = o.namespace ?? 'cdi';
  const name = o.name ?? 'cdi-operator';
  const labels = { app: name };
  return [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } },
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace: ns } },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name },
      rules: [
        { apiGroups: ['cdi.kubevirt.io'], resources: ['cdis'], verbs: ['get', 'list', 'watch'] },
        { apiGroups: ['apiextensions.k8s.io'], resources: ['customresourcedefinitions'], verbs: ['get', 'create', 'patch'] },
      ],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
      subjects: [{ kind: 'ServiceAccount', name, namespace: ns }],
    },
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${name}-crds`, namespace: ns }, data: o.crds },
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name, namespace: ns, labels },
      spec: {
        replicas: 1,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: {
            serviceAccountName: name,
            terminationGracePeriodSeconds: 1,
            containers: [
              {
                name: 'operator',
                image: CDI_OPERATOR_IMAGE,
                imagePullPolicy: 'IfNotPresent',
                env: [
                  { name: 'DELAY', value: o.delay ?? '3s' },
                  { name: 'POLL', value: '500ms' },
                  { name: 'NAMES', value: (o.names ?? []).join(',') },
                  { name: 'CRD_DIR', value: '/etc/cdi-operator/crds' },
                ],
                volumeMounts: [{ name: 'crds', mountPath: '/etc/cdi-operator/crds' }],
              },
            ],
            volumes: [{ name: 'crds', configMap: { name: `${name}-crds` } }],
          },
        },
      },
    },
  ];
}

/** CRD files for the operator from paths (the example's bootstrap/crds). */
export const crdFiles = (files: string[]): Record<string, string> =>
  Object.fromEntries(files.map((f) => [f.slice(f.lastIndexOf('/') + 1), readFileSync(f, 'utf8')]));

export async function applyAll(kc: KubeConfig, objs: Manifest[]): Promise<void> {
  for (const o of objs) await apply(kc, o);
}

const available = (d: V1Deployment) => d.status?.conditions?.some((c) => c.type === 'Available' && c.status === 'True') ?? false;

/** `2/2 ready` plus each unready pod's reason: what a test failure (or standup) should say. */
/** The Deployment and the pods its selector matches. */
async function deploymentPods(kc: KubeConfig, namespace: string, name: string): Promise<{ d: V1Deployment; pods: V1Pod[] }> {
  const d = await kc.makeApiClient(AppsV1Api).readNamespacedDeployment({ namespace, name });
  const sel = Object.entries(d.spec?.selector?.matchLabels ?? {}).map(([k, v]) => `${k}=${v}`).join(',');
  return { d, pods: (await kc.makeApiClient(CoreV1Api).listNamespacedPod({ namespace, labelSelector: sel })).items };
}

export async function describeDeployment(kc: KubeConfig, namespace: string, name: string): Promise<string> {
  const { d, pods } = await deploymentPods(kc, namespace, name);
  const why = (p: V1Pod) => {
    const cs = p.status?.containerStatuses?.[0];
    const waiting = cs?.state?.waiting?.reason;
    return `${p.metadata?.name}: ${p.status?.phase}${waiting ? ` ${waiting}` : ''}${cs && !cs.ready && !waiting ? ' not ready' : ''}`;
  };
  return `${d.status?.readyReplicas ?? 0}/${d.spec?.replicas ?? 0} ready; ${pods.map(why).join('; ')}`;
}

export async function waitDeploymentAvailable(kc: KubeConfig, namespace: string, name: string, timeoutMs = 60_000): Promise<V1Deployment> {
  const api = kc.makeApiClient(AppsV1Api);
  try {
    return await pollUntil(
      `Deployment ${namespace}/${name} Available`,
      async () => {
        const d = await api.readNamespacedDeployment({ namespace, name });
        if (available(d) && d.status?.observedGeneration === d.metadata?.generation) return d;
        throw new Error(await describeDeployment(kc, namespace, name));
      },
      { timeoutMs, intervalMs: 300 },
    );
  } catch (e) {
    // A pod that runs but never turns ready says why only in its log (CoreDNS: which plugin it still waits on): the
    // testbed's state directory is gone by the time anyone reads the failure, so the log goes into the message.
    if (e instanceof Error) e.message += await notReadyLogs(kc, namespace, name).catch((x: unknown) => `\n(pod logs unavailable: ${x instanceof Error ? x.message : String(x)})`);
    throw e;
  }
}

/** The last lines of the log of each of the Deployment's pods that is not ready. */
async function notReadyLogs(kc: KubeConfig, namespace: string, name: string): Promise<string> {
  const core = kc.makeApiClient(CoreV1Api);
  const out: string[] = [];
  for (const p of (await deploymentPods(kc, namespace, name)).pods.filter((x) => !x.status?.containerStatuses?.every((c) => c.ready))) {
    const log = await core.readNamespacedPodLog({ namespace, name: p.metadata!.name!, tailLines: 15 }).catch((x: unknown) => `(no log: ${x instanceof Error ? x.message : String(x)})`);
    out.push(`\n--- ${p.metadata?.name} (last lines of its log) ---\n${String(log).trimEnd()}`);
  }
  return out.join('');
}
