import { FLUX_HELM_RELEASE, type ClusterClient } from '../cluster/client.js';
import { podSelector, type LiveDeployment } from '../status/deployment.js';
import type { LivePod } from '../status/pod.js';
import { describeDeployment, describeHelmRelease, type WorkloadReport } from '../status/workload.js';
import type { LiveHelmRelease } from '../status/helm-source.js';

/** A workload to describe: a Deployment (its pods' reasons) or a HelmRelease (helm-controller's message). */
export interface WorkloadRef {
  kind: string;
  namespace: string | null;
  name: string;
}

/**
 * Reads each Deployment (and its pods) or HelmRelease and describes why it is not ready (`0/1 ready; web-x2:
 * readiness probe failing`). At most `limit` of them. Best effort: what cannot be read is left out, so an explanation
 * never hides the failure it explains.
 */
export async function describeWorkloads(client: ClusterClient, refs: readonly WorkloadRef[], limit = 10): Promise<WorkloadReport[]> {
  const wanted = refs.filter((r) => (r.kind === 'Deployment' || r.kind === 'HelmRelease') && r.namespace).slice(0, limit);
  if (wanted.length === 0) return [];
  const nodes = wanted.some((r) => r.kind === 'Deployment') ? await client.list({ apiVersion: 'v1', kind: 'Node' }).then((l) => l.items.length, () => 1) : 1;
  const out: WorkloadReport[] = [];
  for (const r of wanted) {
    const ns = r.namespace!;
    try {
      if (r.kind === 'HelmRelease') {
        const h = (await client.find({ ...FLUX_HELM_RELEASE, namespace: ns, name: r.name })) as LiveHelmRelease | undefined;
        out.push(describeHelmRelease(h, ns, r.name));
        continue;
      }
      const d = (await client.find({ apiVersion: 'apps/v1', kind: 'Deployment', namespace: ns, name: r.name })) as LiveDeployment | undefined;
      const selector = d ? podSelector(d) : null;
      const pods = selector ? ((await client.list({ apiVersion: 'v1', kind: 'Pod', namespace: ns }, { labelSelector: selector })).items as unknown as LivePod[]) : [];
      out.push(describeDeployment(d, ns, r.name, pods, { nodes }));
    } catch {
      // unreadable (RBAC, the API server away): say nothing rather than something wrong
    }
  }
  return out;
}

/** The live CRD groups (for the missing-kind diagnosis); empty when they cannot be read. */
export async function liveCrdGroups(client: ClusterClient): Promise<Set<string>> {
  try {
    const l = await client.list({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' });
    return new Set(l.items.map((c) => (c.spec as { group?: string } | undefined)?.group).filter((g): g is string => !!g));
  } catch {
    return new Set();
  }
}
