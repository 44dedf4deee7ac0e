import type { K8sObject } from '../cluster/client.js';
import type { RootSync } from '../plan/plan.js';
import { summarizeActions } from './change.js';
import { rootSuspension, setRootSuspended } from './root-sync.js';
import type { StepOutcome } from './steps.js';
import type { Writer } from './writer.js';

/**
 * What `flux bootstrap` leaves in a cluster besides the controllers: the secrets tiers.yaml declares and the root sync
 * (source + root Kustomization), applied server-side. `up` means stand it up, so a root sync left suspended (by
 * `standup reset`, or by hand during an incident) is resumed too; otherwise no tier would ever appear.
 */
export async function applySecretsAndSync(
  o: Writer & {
    secrets: readonly K8sObject[];
    /** The sync objects, already pointed at the mirror when --source-url was given. */
    sync: readonly K8sObject[];
    root: RootSync;
  },
): Promise<StepOutcome> {
  const results = await o.client.apply([...o.secrets, ...o.sync], { fieldManager: 'standup', force: true, dryRun: o.dryRun });
  // Only ids and actions are reported: never a Secret's data.
  for (const r of results) o.emit({ type: 'change', id: o.id, object: r.id, change: { kind: 'apply', action: r.action }, dryRun: !!o.dryRun });
  let message = summarizeActions(results.map((r) => r.action), o.dryRun);
  const s = o.dryRun ? { suspended: false } : await rootSuspension(o.client, o.root, results);
  if (s.suspended) {
    await setRootSuspended(o, o.root, false);
    message += `; ${o.root.key} resumed (it was suspended)`;
  }
  return { result: 'ok', message };
}
