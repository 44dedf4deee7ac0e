import { CustomObjectsApi, ApiextensionsV1Api, CoreV1Api, type KubeConfig } from '@kubernetes/client-node';

export interface Ks {
  metadata: { name: string; namespace: string; resourceVersion: string; generation: number; annotations?: Record<string, string>; labels?: Record<string, string> };
  spec: { suspend?: boolean };
  status?: { lastAppliedRevision?: string; observedGeneration?: number; conditions?: { type: string; status: string; reason?: string; message?: string }[] };
}

const KS = { group: 'kustomize.toolkit.fluxcd.io', version: 'v1', plural: 'kustomizations' };
const GIT = { group: 'source.toolkit.fluxcd.io', version: 'v1', plural: 'gitrepositories' };

/** Small direct reads of the API for assertions: independent of standup's own client. */
export function kube(kc: KubeConfig) {
  const co = kc.makeApiClient(CustomObjectsApi);
  const ext = kc.makeApiClient(ApiextensionsV1Api);
  const core = kc.makeApiClient(CoreV1Api);
  return {
    async namespace(name: string) {
      try {
        return await core.readNamespace({ name });
      } catch {
        return null;
      }
    },
    async kustomizations(namespace = 'flux-system'): Promise<Ks[]> {
      return ((await co.listNamespacedCustomObject({ ...KS, namespace })) as { items: Ks[] }).items;
    },
    async gitRepository(name: string, namespace = 'flux-system'): Promise<{ status?: { artifact?: { revision?: string } } } | null> {
      try {
        return (await co.getNamespacedCustomObject({ ...GIT, namespace, name })) as never;
      } catch {
        return null;
      }
    },
    async crd(name: string) {
      try {
        return await ext.readCustomResourceDefinition({ name });
      } catch {
        return null;
      }
    },
    async deleteKs(name: string, namespace = 'flux-system') {
      await co.deleteNamespacedCustomObject({ ...KS, namespace, name }).catch(() => undefined);
    },
    async deleteGit(name: string, namespace = 'flux-system') {
      await co.deleteNamespacedCustomObject({ ...GIT, namespace, name }).catch(() => undefined);
    },
    async deleteCrd(name: string) {
      await ext.deleteCustomResourceDefinition({ name }).catch(() => undefined);
    },
  };
}

export const ready = (k: Ks): boolean =>
  k.status?.observedGeneration === k.metadata.generation && k.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;

export async function until<T>(what: string, fn: () => Promise<T | undefined | null | false>, timeoutMs = 120_000, everyMs = 500): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
