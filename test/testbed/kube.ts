import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import {
  ApiextensionsV1Api,
  ApiException,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  KubernetesObjectApi,
  PatchStrategy,
  setHeaderOptions,
  type KubernetesObject,
  type V1CustomResourceDefinition,
} from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import { pollUntil } from './wait.js';

export const FIELD_MANAGER = 'standup-testbed';

export function loadKubeConfig(kubeconfigPath: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfigPath);
  return kc;
}

export const httpStatus = (e: unknown): number | undefined => (e instanceof ApiException ? e.code : undefined);

/** Server-side apply, forced: the testbed owns what it applies. */
export async function apply(kc: KubeConfig, obj: KubernetesObject): Promise<KubernetesObject> {
  if (obj.kind === 'CustomResourceDefinition') {
    // KubernetesObjectApi serializes CRDs through the typed model, which
    // silently drops raw keys such as x-kubernetes-preserve-unknown-fields.
    // CustomObjectsApi sends the body untouched.
    return (await kc.makeApiClient(CustomObjectsApi).patchClusterCustomObject(
      {
        group: 'apiextensions.k8s.io',
        version: 'v1',
        plural: 'customresourcedefinitions',
        name: obj.metadata?.name ?? '',
        body: obj,
        fieldManager: FIELD_MANAGER,
        force: true,
      },
      setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply),
    )) as KubernetesObject;
  }
  // A fresh client each time: KubernetesObjectApi caches discovery per
  // group/version, which goes stale as soon as a new CRD appears.
  return KubernetesObjectApi.makeApiClient(kc).patch(
    obj,
    undefined,
    undefined,
    FIELD_MANAGER,
    true,
    PatchStrategy.ServerSideApply,
  );
}

export function readYamlObjects(file: string): KubernetesObject[] {
  return parseAllDocuments(readFileSync(file, 'utf8'))
    .map((d) => d.toJS() as KubernetesObject | null)
    .filter((o): o is KubernetesObject => !!o && typeof o === 'object' && !!o.kind);
}

export function readYamlDir(dir: string): KubernetesObject[] {
  return readdirSync(dir)
    .filter((f) => /\.ya?ml$/.test(f))
    .sort()
    .flatMap((f) => readYamlObjects(path.join(dir, f)));
}

export const crdEstablished = (crd: V1CustomResourceDefinition): boolean =>
  crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') ?? false;

export async function waitCrdsEstablished(kc: KubeConfig, names: string[], timeoutMs = 30_000): Promise<void> {
  const api = kc.makeApiClient(ApiextensionsV1Api);
  await Promise.all(
    names.map((name) =>
      pollUntil(
        `CRD ${name} Established`,
        async () => (crdEstablished(await api.readCustomResourceDefinition({ name })) ? true : undefined),
        { timeoutMs, intervalMs: 200 },
      ),
    ),
  );
}

export async function ensureNamespace(kc: KubeConfig, name: string): Promise<void> {
  await apply(kc, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
}

/** Whether a read finds its object: false on 404, any other error thrown. */
export async function exists(read: () => Promise<unknown>): Promise<boolean> {
  try {
    await read();
    return true;
  } catch (e) {
    if (httpStatus(e) === 404) return false;
    throw e;
  }
}

export const namespaceExists = (kc: KubeConfig, name: string): Promise<boolean> => exists(() => kc.makeApiClient(CoreV1Api).readNamespace({ name }));
