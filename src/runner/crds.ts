import path from 'node:path';
import type { ClusterClient } from '../cluster/client.js';
import { ConfigError } from '../model/errors.js';
import type { Emit } from './events.js';
import { readManifests } from './manifests.js';
import { summarizeActions, type StepOutcome } from './step.js';

/**
 * The CRD fallback: server-side applies the configured manifests (CRDs, or the resource that makes an operator
 * create them) under field manager `standup`, waiting for CRDs to be Established. A second run writes nothing.
 */
export async function applyCrdFallback(o: { client: ClusterClient; root: string; files: string[]; emit: Emit; id: string; dryRun?: boolean }): Promise<StepOutcome> {
  if (o.files.length === 0) return { result: 'skipped', message: 'no CRD fallback in tiers.yaml (crds:)' };
  const objects = (await Promise.all(o.files.map((f) => readManifests(path.resolve(o.root, f), f)))).flat();
  if (objects.length === 0) throw new ConfigError('CRDS_EMPTY', `the CRD fallback (${o.files.join(', ')}) holds no objects`, 'Point crds: in tiers.yaml at CRD manifests.');
  const results = await o.client.apply(objects, { fieldManager: 'standup', force: true, dryRun: o.dryRun });
  for (const r of results) o.emit({ type: 'change', id: o.id, object: r.id, action: r.action, dryRun: !!o.dryRun });
  return { result: 'ok', message: summarizeActions(results.map((r) => r.action)) };
}
