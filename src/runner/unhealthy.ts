// When a tier's health check fails or times out, Flux names the objects (`Deployment/apps/web (InProgress)`) but not
// why. This reads each one the diagnosis names and says why in kubelet's or helm-controller's words.
import type { ClusterClient } from '../cluster/client.js';
import type { Diagnosis } from '../status/diagnose.js';
import { deploymentSummary, helmReleaseSummary, type LiveDeployment, type LiveHelmRelease, type LivePod } from '../status/workload.js';

const KINDS: Record<string, string> = { Deployment: 'apps/v1', HelmRelease: 'helm.toolkit.fluxcd.io/v2' };

/** One line per Deployment or HelmRelease the health check still waited on; never throws (best effort). */
export async function describeUnhealthy(client: ClusterClient, d: Diagnosis | undefined | null, limit = 5): Promise<string[]> {
  if (d?.type !== 'health-check') return [];
  const lines: string[] = [];
  for (const o of d.objects.filter((x) => KINDS[x.kind]).slice(0, limit)) {
    try {
      const ref = { apiVersion: KINDS[o.kind]!, kind: o.kind, name: o.name, namespace: o.namespace };
      const live = await client.find(ref);
      if (!live) continue;
      if (o.kind === 'HelmRelease') {
        lines.push(helmReleaseSummary(live as unknown as LiveHelmRelease));
        continue;
      }
      const dep = live as unknown as LiveDeployment;
      const selector = Object.entries(dep.spec?.selector?.matchLabels ?? {}).map(([k, v]) => `${k}=${v}`).join(',');
      const pods = selector ? (await client.list({ apiVersion: 'v1', kind: 'Pod', namespace: o.namespace ?? undefined }, { labelSelector: selector })).items : [];
      lines.push(deploymentSummary(dep, pods as unknown as LivePod[]));
    } catch {
      // a detail only: the tier's own failure is reported either way
    }
  }
  return lines;
}

export const withDetails = (message: string, lines: readonly string[]): string => (lines.length ? `${message}\n  ${lines.join('\n  ')}` : message);

