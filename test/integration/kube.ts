import { ApiextensionsV1Api, type KubeConfig } from '@kubernetes/client-node';
import { deleteFlux, getFlux, GIT_REPOSITORY, isReady, KUSTOMIZATION, listKustomizations, type FluxObject } from '../testbed/flux-client.js';
import { namespaceExists } from '../testbed/kube.js';
import { deleteCrd } from '../testbed/operator.js';
import { pollUntil } from '../testbed/wait.js';

/** A live Kustomization as the runner tests read it (the testbed's FluxObject, with metadata always present). */
export interface Ks extends FluxObject {
  metadata: { name: string; namespace: string; resourceVersion: string; generation: number; annotations?: Record<string, string>; labels?: Record<string, string> };
}

/**
 * A read retried while the API server answers 429 "storage is (re)initializing" (its watch cache relisting after an
 * etcd compaction or a restart, which another file on the shared testbed may have just caused), once a second as its
 * Retry-After says, as client-go does; for up to 30 s.
 */
async function busyRetried<T>(read: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await read();
    } catch (e) {
      if ((e as { code?: number }).code !== 429 || attempt >= 30) throw e;
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}

/**
 * Direct reads and deletes for assertions and clean-up, independent of standup's own client; built on the testbed's
 * helpers (test/testbed) with null for "absent", which the assertions read best.
 */
export function kube(kc: KubeConfig) {
  const ext = kc.makeApiClient(ApiextensionsV1Api);
  return {
    namespace: async (name: string) => ((await busyRetried(() => namespaceExists(kc, name))) ? name : null),
    kustomizations: async (namespace = 'flux-system') => (await busyRetried(() => listKustomizations(kc, namespace))) as Ks[],
    gitRepository: async (name: string, namespace = 'flux-system') => (await busyRetried(() => getFlux(kc, GIT_REPOSITORY, name, namespace))) ?? null,
    async crd(name: string) {
      try {
        return await ext.readCustomResourceDefinition({ name });
      } catch {
        return null;
      }
    },
    deleteKs: (name: string, namespace = 'flux-system') => deleteFlux(kc, KUSTOMIZATION, name, namespace),
    deleteGit: (name: string, namespace = 'flux-system') => deleteFlux(kc, GIT_REPOSITORY, name, namespace),
    deleteCrd: (name: string) => deleteCrd(kc, name),
  };
}

export const ready = (k: Ks): boolean => isReady(k);

/** Polls until `fn` returns something truthy (the testbed's pollUntil, with falsy meaning "not yet"). */
export const until = <T>(what: string, fn: () => Promise<T | undefined | null | false>, timeoutMs = 120_000, intervalMs = 500, abort?: () => string | undefined): Promise<T> =>
  pollUntil(what, async () => (await fn()) || undefined, { timeoutMs, intervalMs, abort });
