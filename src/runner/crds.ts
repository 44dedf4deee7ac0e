import type { K8sObject } from '../cluster/client.js';
import { summarizeActions } from './change.js';
import type { StepOutcome } from './steps.js';
import type { Writer } from './writer.js';

/**
 * The CRD fallback: server-side applies the configured manifests (CRDs, or the resource that makes an operator
 * create them) under field manager `standup`, waiting for CRDs to be Established. A second run writes nothing.
 */
export async function applyCrdFallback(o: Writer & { objects: readonly K8sObject[]; files: readonly string[] }): Promise<StepOutcome> {
  if (o.files.length === 0) return { result: 'skipped', message: 'no CRD fallback in tiers.yaml (crds:)' };
  const results = await o.client.apply(o.objects, { fieldManager: 'standup', force: true, dryRun: o.dryRun });
  for (const r of results) o.emit({ type: 'change', id: o.id, object: r.id, change: { kind: 'apply', action: r.action }, dryRun: !!o.dryRun });
  return { result: 'ok', message: summarizeActions(results.map((r) => r.action), o.dryRun) };
}
