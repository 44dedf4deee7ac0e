import { FLUX_HELM_RELEASE, type ClusterClient } from '../cluster/client.js';
import { podSelector, type LiveDeployment } from '../status/deployment.js';
import type { LiveHelmRelease } from '../status/helm-source.js';
import type { LivePod } from '../status/pod.js';
import { describeDeployment, describeHelmRelease, type WorkloadReport } from '../status/workload.js';
import type { Look, WatchedKind } from './live-state.js';
import type { NamespacedRef, ObjRef } from '../model/ref.js';


/**
 * Where the workloads are read from: the API (the Flux install's wait) or the run's watches (a tier's failure). A read
 * that throws leaves its workload out.
 */
export interface WorkloadReader {
  nodeCount(): Promise<number>;
  deployment(namespace: string, name: string): Promise<LiveDeployment | undefined>;
  /** The pods a Deployment's selector (`k=v,k2=v2`) picks. */
  pods(namespace: string, selector: string): Promise<LivePod[]>;
  helmRelease(namespace: string, name: string): Promise<LiveHelmRelease | undefined>;
}

/**
 * The workloads `describeWorkloads` reads: Deployments (their pods' reasons) and HelmReleases (helm-controller's
 * message) with a namespace, at most `limit`.
 */
export const describable = (refs: readonly ObjRef[], limit = 10): (NamespacedRef)[] =>
  refs.filter((r): r is NamespacedRef => (r.kind === 'Deployment' || r.kind === 'HelmRelease') && !!r.namespace).slice(0, limit);

/**
 * Describes each Deployment (from its pods) or HelmRelease and why it is not ready (`0/1 ready; web-x2: readiness probe
 * failing`). At most `limit` of them. Best effort: what cannot be read is left out, so an explanation never hides the
 * failure it explains.
 */
export async function describeWorkloads(read: WorkloadReader, refs: readonly ObjRef[], limit = 10): Promise<WorkloadReport[]> {
  const wanted = describable(refs, limit);
  if (wanted.length === 0) return [];
  const nodes = wanted.some((r) => r.kind === 'Deployment') ? await read.nodeCount().catch(() => 1) : 1;
  const out: WorkloadReport[] = [];
  for (const r of wanted) {
    try {
      if (r.kind === 'HelmRelease') {
        out.push(describeHelmRelease(await read.helmRelease(r.namespace, r.name), r.namespace, r.name));
        continue;
      }
      const d = await read.deployment(r.namespace, r.name);
      const selector = d ? podSelector(d) : null;
      const pods = selector ? await read.pods(r.namespace, selector) : [];
      out.push(describeDeployment(d, r.namespace, r.name, pods, { nodes }));
    } catch {
      // unreadable (RBAC, the API server away): say nothing rather than something wrong
    }
  }
  return out;
}

/** Reads the workloads from the API, one request each. */
export const apiWorkloads = (client: ClusterClient): WorkloadReader => ({
  nodeCount: async () => (await client.list({ apiVersion: 'v1', kind: 'Node' })).items.length,
  deployment: async (namespace, name) => (await client.find({ apiVersion: 'apps/v1', kind: 'Deployment', namespace, name })) as LiveDeployment | undefined,
  pods: async (namespace, selector) => (await client.list({ apiVersion: 'v1', kind: 'Pod', namespace }, { labelSelector: selector })).items as unknown as LivePod[],
  helmRelease: async (namespace, name) => (await client.find({ ...FLUX_HELM_RELEASE, namespace, name })) as LiveHelmRelease | undefined,
});

const NODES: WatchedKind = { apiVersion: 'v1', kind: 'Node' };
const deploymentsIn = (namespace: string): WatchedKind => ({ apiVersion: 'apps/v1', kind: 'Deployment', namespace });
const podsOf = (namespace: string, labelSelector: string): WatchedKind => ({ apiVersion: 'v1', kind: 'Pod', namespace, labelSelector });

/**
 * Reads the workloads from the run's watches: the Deployments of each namespace named, the pods each selector picks
 * and the Nodes, watched from the first time a tier's failure names them; HelmReleases from the watch the run always
 * has. Undefined while a watch they need is still listing.
 */
export function watchedWorkloads(refs: readonly ObjRef[], look: Look, helmReleases: ReadonlyMap<string, LiveHelmRelease>, limit = 10): WorkloadReader | undefined {
  const deployments = describable(refs, limit).filter((r) => r.kind === 'Deployment');
  if (deployments.length > 0 && look(NODES) === undefined) return undefined;
  for (const r of deployments) {
    const all = look(deploymentsIn(r.namespace));
    if (all === undefined) return undefined;
    const d = all?.get(`${r.namespace}/${r.name}`) as LiveDeployment | undefined;
    const selector = d ? podSelector(d) : null;
    if (selector && look(podsOf(r.namespace, selector)) === undefined) return undefined;
  }
  const listed = (kind: WatchedKind) => {
    const objects = look(kind);
    if (!objects) throw new Error(`${kind.kind} cannot be read`);
    return objects;
  };
  return {
    nodeCount: async () => listed(NODES).size,
    deployment: async (namespace, name) => listed(deploymentsIn(namespace)).get(`${namespace}/${name}`) as LiveDeployment | undefined,
    pods: async (namespace, selector) => [...listed(podsOf(namespace, selector)).values()] as unknown as LivePod[],
    helmRelease: async (namespace, name) => helmReleases.get(`${namespace}/${name}`),
  };
}

/**
 * The Deployments among `refs` as the run's watches show them now, described (`0/1 ready; web-x2: ErrImagePull
 * (container app, image ...)`), for the live line of a tier that waits on them; undefined while a watch is listing.
 */
export function describeWatchedDeployments(refs: readonly ObjRef[], look: Look, limit = 10): WorkloadReport[] | undefined {
  const deployments = describable(refs, limit).filter((r) => r.kind === 'Deployment');
  if (deployments.length === 0) return [];
  const nodes = look(NODES);
  if (nodes === undefined) return undefined;
  const out: WorkloadReport[] = [];
  for (const r of deployments) {
    const all = look(deploymentsIn(r.namespace));
    if (all === undefined) return undefined;
    const d = all?.get(`${r.namespace}/${r.name}`) as LiveDeployment | undefined;
    const selector = d ? podSelector(d) : null;
    const pods = selector ? look(podsOf(r.namespace, selector)) : null;
    if (pods === undefined) return undefined;
    // A pod of an older template (a rollout replacing it) does not speak for the Deployment as it is now.
    const images = new Set(templateImages(d));
    const current = ([...(pods?.values() ?? [])] as unknown as LivePod[]).filter((p) => (p.spec?.containers ?? []).every((c) => images.has(c.image ?? '')));
    out.push(describeDeployment(d, r.namespace, r.name, current, { nodes: nodes?.size ?? 1 }));
  }
  return out;
}

const templateImages = (d: LiveDeployment | undefined): string[] =>
  ((d?.spec as { template?: { spec?: { containers?: { image?: string }[] } } } | undefined)?.template?.spec?.containers ?? []).map((c) => c.image ?? '');
