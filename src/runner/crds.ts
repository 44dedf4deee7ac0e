import type { ClusterClient, K8sObject } from '../cluster/client.js';
import type { Emit } from './events.js';
import { summarizeActions, type StepOutcome } from './steps.js';

/**
 * The CRD fallback: server-side applies the configured manifests (CRDs, or the resource that makes an operator
 * create them) under field manager `standup`, waiting for CRDs to be Established. A second run writes nothing.
 */
export async function applyCrdFallback(o: { client: ClusterClient; objects: readonly K8sObject[]; files: readonly string[]; emit: Emit; id: string; dryRun?: boolean }): Promise<StepOutcome> {
  if (o.files.length === 0) return { result: 'skipped', message: 'no CRD fallback in tiers.yaml (crds:)' };
  const results = await o.client.apply(o.objects, { fieldManager: 'standup', force: true, dryRun: o.dryRun });
  for (const r of results) o.emit({ type: 'change', id: o.id, object: r.id, action: r.action, dryRun: !!o.dryRun });
  return { result: 'ok', message: summarizeActions(results.map((r) => r.action), o.dryRun) };
}
