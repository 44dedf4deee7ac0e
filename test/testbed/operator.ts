import { setTimeout as sleep } from 'node:timers/promises';
import {
  ApiextensionsV1Api,
  CustomObjectsApi,
  KubeConfig,
  type KubernetesListObject,
  type KubernetesObject,
} from '@kubernetes/client-node';
import { apply, httpStatus, loadKubeConfig, waitCrdsEstablished } from './kube.js';
import { pollUntil } from './wait.js';

export interface ResourceRef {
  group: string;
  version: string;
  plural: string;
}

export interface CrdOperatorOptions {
  /** When an object of this resource exists (any namespace)... */
  trigger: ResourceRef;
  /** ...and, if given, has one of these names (tests share a cluster: ignore others' objects)... */
  names?: string[];
  /** ...create this CRD, */
  crd: KubernetesObject;
  /** ...this long after first seeing it (a real operator takes a while to install). */
  delayMs?: number;
  pollMs?: number;
}

export interface CrdOperator {
  readonly crdName: string;
  /** When the trigger object was first seen / the CRD created, if yet. */
  readonly triggeredAt: Date | undefined;
  readonly createdAt: Date | undefined;
  readonly error: Error | undefined;
  waitCreated(timeoutMs: number): Promise<Date>;
  stop(): Promise<void>;
}

/**
 * A tiny in-process "operator": polls for the trigger resource and installs a
 * CRD once it appears. This is the CDI pattern from the seeds: the CDI custom
 * resource makes the CDI operator install storageprofiles.cdi.kubevirt.io, so
 * a Kustomization applying a CDI and a StorageProfile together can never pass
 * its dry-run. Polling (not a watch) keeps it robust across apiserver restarts.
 */
export function startCrdOperator(kubeconfig: string | KubeConfig, o: CrdOperatorOptions): CrdOperator {
  const kc = typeof kubeconfig === 'string' ? loadKubeConfig(kubeconfig) : kubeconfig;
  const custom = kc.makeApiClient(CustomObjectsApi);
  const crdName = o.crd.metadata?.name ?? '';
  let stopped = false;
  let triggeredAt: Date | undefined;
  let createdAt: Date | undefined;
  let error: Error | undefined;

  const triggerExists = async (): Promise<boolean> => {
    try {
      const list = (await custom.listClusterCustomObject({ ...o.trigger })) as KubernetesListObject<KubernetesObject>;
      return list.items.some((i) => !o.names || o.names.includes(i.metadata?.name ?? ''));
    } catch (e) {
      if (httpStatus(e) === 404) return false; // trigger CRD not installed yet
      throw e;
    }
  };

  const loop = (async () => {
    while (!stopped) {
      try {
        if (!triggeredAt && (await triggerExists())) triggeredAt = new Date();
        if (triggeredAt) {
          const wait = (o.delayMs ?? 0) - (Date.now() - triggeredAt.getTime());
          if (wait > 0) await sleep(wait);
          if (stopped) return;
          await apply(kc, o.crd);
          await waitCrdsEstablished(kc, [crdName]);
          createdAt = new Date();
          return;
        }
      } catch (e) {
        // Transient (e.g. apiserver restarting): keep trying, remember why.
        error = e instanceof Error ? e : new Error(String(e));
      }
      await sleep(o.pollMs ?? 500);
    }
  })();

  return {
    crdName,
    get triggeredAt() {
      return triggeredAt;
    },
    get createdAt() {
      return createdAt;
    },
    get error() {
      return error;
    },
    waitCreated: (timeoutMs) =>
      pollUntil(`operator to create CRD ${crdName}`, async () => createdAt, {
        timeoutMs,
        abort: () => (stopped && !createdAt ? 'operator stopped' : undefined),
      }),
    async stop() {
      stopped = true;
      await loop;
    },
  };
}

/** Deletes a CRD (e.g. to reset the operator's effect between tests); ignores 404. */
export async function deleteCrd(kc: KubeConfig, name: string): Promise<void> {
  try {
    await kc.makeApiClient(ApiextensionsV1Api).deleteCustomResourceDefinition({ name });
  } catch (e) {
    if (httpStatus(e) !== 404) throw e;
  }
}
