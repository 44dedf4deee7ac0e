import type {  } from '../cluster/client.js';

import { REQUESTED_AT } from '../status/conditions.js';
import { retryTransient, type Writer } from './writer.js';
import { type ApiRef, refKey } from '../model/ref.js';

/**
 * Asks a Flux controller to reconcile `ref` now, as `flux reconcile` does: a merge patch of
 * `reconcile.fluxcd.io/requestedAt` = `value`. The controller echoes the value in status.lastHandledReconcileAt once
 * it has handled the request. The write is standup's (field manager `standup`). Returns the value.
 */
export async function requestReconcile(o: Writer, ref: ApiRef, value: string): Promise<string> {
  await retryTransient(() => o.client.patchMerge(ref, { metadata: { annotations: { [REQUESTED_AT]: value } } }, { fieldManager: 'standup' }), o.signal, o.clock);
  o.emit({ type: 'change', id: o.id, object: refKey(ref), change: { kind: 'annotate', key: REQUESTED_AT, value }, dryRun: false });
  return value;
}
