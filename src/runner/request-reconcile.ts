import type { ClusterClient, ObjectRef } from '../cluster/client.js';
import { refId } from '../cluster/client.js';
import { REQUESTED_AT } from '../status/conditions.js';
import type { Emit } from './events.js';
import { retryTransient } from './retry.js';

/**
 * Asks a Flux controller to reconcile `ref` now, as `flux reconcile` does: a merge patch of
 * `reconcile.fluxcd.io/requestedAt` = `value`. The controller echoes the value in status.lastHandledReconcileAt once
 * it has handled the request. The write is standup's (field manager `standup`). Returns the value.
 */
export async function requestReconcile(o: { client: ClusterClient; emit: Emit; id: string; signal: AbortSignal }, ref: ObjectRef, value: string): Promise<string> {
  await retryTransient(() => o.client.patchMerge(ref, { metadata: { annotations: { [REQUESTED_AT]: value } } }, { fieldManager: 'standup' }), o.signal);
  o.emit({ type: 'change', id: o.id, object: refId(ref), action: `annotated ${REQUESTED_AT}=${value}`, dryRun: false });
  return value;
}
