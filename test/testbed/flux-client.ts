// Small typed helpers for tests that drive Flux objects on the testbed.
import {
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
  type KubeConfig,
  type KubernetesObject,
} from '@kubernetes/client-node';
import { FIELD_MANAGER, httpStatus } from './kube.js';
import { FLUX_NAMESPACE } from './flux.js';
import { TimeoutError } from './errors.js';
import { setTimeout as sleep } from 'node:timers/promises';

export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
}

export interface FluxObject extends KubernetesObject {
  spec?: Record<string, unknown>;
  status?: {
    observedGeneration?: number;
    conditions?: Condition[];
    artifact?: { revision?: string; url?: string; digest?: string };
    lastAppliedRevision?: string;
    lastAttemptedRevision?: string;
    lastHandledReconcileAt?: string;
    inventory?: { entries?: { id: string; v: string }[] };
  };
}

export const GIT_REPOSITORY = { group: 'source.toolkit.fluxcd.io', version: 'v1', plural: 'gitrepositories', kind: 'GitRepository' } as const;
export const KUSTOMIZATION = { group: 'kustomize.toolkit.fluxcd.io', version: 'v1', plural: 'kustomizations', kind: 'Kustomization' } as const;
export type FluxKind = typeof GIT_REPOSITORY | typeof KUSTOMIZATION;

export const REQUESTED_AT = 'reconcile.fluxcd.io/requestedAt';

export function gitRepository(name: string, url: string, o: { interval?: string; namespace?: string } = {}): FluxObject {
  return {
    apiVersion: `${GIT_REPOSITORY.group}/${GIT_REPOSITORY.version}`,
    kind: GIT_REPOSITORY.kind,
    metadata: { name, namespace: o.namespace ?? FLUX_NAMESPACE },
    spec: { url, interval: o.interval ?? '10s', ref: { branch: 'main' }, timeout: '20s' },
  };
}

export interface KustomizationSpec {
  path: string;
  source: string;
  dependsOn?: string[];
  interval?: string;
  retryInterval?: string;
  prune?: boolean;
  namespace?: string;
}

export function kustomization(name: string, s: KustomizationSpec): FluxObject {
  return {
    apiVersion: `${KUSTOMIZATION.group}/${KUSTOMIZATION.version}`,
    kind: KUSTOMIZATION.kind,
    metadata: { name, namespace: s.namespace ?? FLUX_NAMESPACE },
    spec: {
      path: s.path,
      sourceRef: { kind: GIT_REPOSITORY.kind, name: s.source },
      interval: s.interval ?? '1m',
      retryInterval: s.retryInterval ?? '5s',
      prune: s.prune ?? true,
      ...(s.dependsOn ? { dependsOn: s.dependsOn.map((n) => ({ name: n })) } : {}),
    },
  };
}

const kindOf = (obj: KubernetesObject): FluxKind => (obj.kind === GIT_REPOSITORY.kind ? GIT_REPOSITORY : KUSTOMIZATION);

/** Server-side apply of a GitRepository or Kustomization. */
export async function applyFlux(kc: KubeConfig, obj: FluxObject): Promise<FluxObject> {
  const k = kindOf(obj);
  return (await kc.makeApiClient(CustomObjectsApi).patchNamespacedCustomObject(
    {
      group: k.group,
      version: k.version,
      plural: k.plural,
      namespace: obj.metadata?.namespace ?? FLUX_NAMESPACE,
      name: obj.metadata?.name ?? '',
      body: obj,
      fieldManager: FIELD_MANAGER,
      force: true,
    },
    setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply),
  )) as FluxObject;
}

export async function getFlux(kc: KubeConfig, k: FluxKind, name: string, namespace = FLUX_NAMESPACE): Promise<FluxObject | undefined> {
  try {
    return (await kc.makeApiClient(CustomObjectsApi).getNamespacedCustomObject({
      group: k.group,
      version: k.version,
      plural: k.plural,
      namespace,
      name,
    })) as FluxObject;
  } catch (e) {
    if (httpStatus(e) === 404) return undefined;
    throw e;
  }
}

export async function deleteFlux(kc: KubeConfig, k: FluxKind, name: string, namespace = FLUX_NAMESPACE): Promise<void> {
  try {
    await kc.makeApiClient(CustomObjectsApi).deleteNamespacedCustomObject({ group: k.group, version: k.version, plural: k.plural, namespace, name });
  } catch (e) {
    if (httpStatus(e) !== 404) throw e;
  }
}

/** Sets reconcile.fluxcd.io/requestedAt, which makes the controller reconcile now; returns the value. */
export async function requestReconcile(kc: KubeConfig, k: FluxKind, name: string, namespace = FLUX_NAMESPACE): Promise<string> {
  const at = new Date().toISOString();
  await kc.makeApiClient(CustomObjectsApi).patchNamespacedCustomObject(
    { group: k.group, version: k.version, plural: k.plural, namespace, name, body: { metadata: { annotations: { [REQUESTED_AT]: at } } } },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  );
  return at;
}

export const condition = (obj: FluxObject | undefined, type = 'Ready'): Condition | undefined =>
  obj?.status?.conditions?.find((c) => c.type === type);

/** Ready=True for the current generation (what `flux` itself waits for). */
export const isReady = (obj: FluxObject | undefined): boolean =>
  !!obj && condition(obj)?.status === 'True' && obj.status?.observedGeneration === obj.metadata?.generation;

export const describe = (obj: FluxObject | undefined): string => {
  if (!obj) return 'not found';
  const r = condition(obj);
  return `${obj.kind}/${obj.metadata?.name} gen=${obj.metadata?.generation} observed=${obj.status?.observedGeneration} ` +
    `Ready=${r?.status ?? '-'} ${r?.reason ?? ''}: ${r?.message ?? ''} ` +
    `artifact=${obj.status?.artifact?.revision ?? '-'} applied=${obj.status?.lastAppliedRevision ?? '-'}`;
};

/**
 * Polls a Flux object until `until` holds; returns it. On timeout the error
 * carries the last observed status, which is what a failing test needs to show.
 */
export async function waitFlux(
  kc: KubeConfig,
  k: FluxKind,
  name: string,
  until: (o: FluxObject) => boolean,
  { timeoutMs = 90_000, intervalMs = 500, namespace = FLUX_NAMESPACE } = {},
): Promise<FluxObject> {
  const deadline = Date.now() + timeoutMs;
  let last: FluxObject | undefined;
  for (;;) {
    last = await getFlux(kc, k, name, namespace).catch(() => last);
    if (last && until(last)) return last;
    if (Date.now() > deadline) throw new TimeoutError(`${k.kind} ${namespace}/${name}`, timeoutMs, describe(last));
    await sleep(intervalMs);
  }
}

async function listFlux(kc: KubeConfig, k: FluxKind, namespace: string): Promise<FluxObject[]> {
  const l = (await kc.makeApiClient(CustomObjectsApi).listNamespacedCustomObject({
    group: k.group,
    version: k.version,
    plural: k.plural,
    namespace,
  })) as { items: FluxObject[] };
  return l.items;
}

export const listKustomizations = (kc: KubeConfig, namespace = FLUX_NAMESPACE): Promise<FluxObject[]> =>
  listFlux(kc, KUSTOMIZATION, namespace);

/**
 * Deletes every Kustomization (their finalizers prune what they applied) and
 * then every GitRepository in `namespace`, waiting until they are gone. Test
 * files share one cluster: each cleans up its own namespace.
 */
export async function deleteAllFlux(kc: KubeConfig, namespace: string, timeoutMs = 120_000): Promise<void> {
  for (const k of [KUSTOMIZATION, GIT_REPOSITORY]) {
    for (const o of await listFlux(kc, k, namespace)) await deleteFlux(kc, k, o.metadata?.name ?? '', namespace);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const left = await listFlux(kc, k, namespace);
      if (left.length === 0) break;
      if (Date.now() > deadline) throw new TimeoutError(`${k.kind}s in ${namespace} to be deleted`, timeoutMs, left.map(describe).join('; '));
      await sleep(500);
    }
  }
}
