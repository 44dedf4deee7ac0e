import type { ClusterClient, K8sObject } from '../cluster/client.js';
import type { RootSync } from '../plan/plan.js';
import type { Clock } from './clock.js';
import { retryTransient, type Writer } from './writer.js';
import { refKey, type ApiRef } from '../model/ref.js';

// `up --source-url` installing Flux writes the sync only after the controllers are Available. Killed before that, the
// mirror would live only in up's memory, and `resume` (which finishes the sync from the checkout) would apply git's URL,
// which the cluster may not reach. So up records the mirror in the cluster before the install, and resume honours it.

/** The ConfigMap, in the root source's namespace, that records the mirror `up --source-url` syncs from. */
export const MIRROR_RECORD = 'standup-source-url';

const recordRef = (root: RootSync): ApiRef => ({ apiVersion: 'v1', kind: 'ConfigMap', namespace: root.source.namespace, name: MIRROR_RECORD });

/** The URL to show: a mirror URL may carry credentials (https://user:token@host/...), which are never printed. */
export function shownUrl(url: string): string {
  try {
    const u = new URL(url);
    if (!u.username && !u.password) return url;
    u.username = '***';
    u.password = '';
    return u.toString();
  } catch {
    return url.replace(/\/\/[^/@]*@/, '//***@');
  }
}

/**
 * Writes the record (and the namespace it lives in, which the install would create a moment later) under field
 * manager `standup`. `namespace`: that Namespace as the install manifests declare it, so both applies agree.
 */
export async function recordMirror(o: Writer, root: RootSync, url: string, namespace?: K8sObject): Promise<void> {
  const ns: K8sObject = namespace ?? { apiVersion: 'v1', kind: 'Namespace', metadata: { name: root.source.namespace } };
  const cm: K8sObject = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: MIRROR_RECORD, namespace: root.source.namespace, labels: { 'app.kubernetes.io/managed-by': 'standup' } },
    data: { source: refKey(root.source), url },
  };
  const results = await retryTransient(() => o.client.apply([ns, cm], { fieldManager: 'standup', force: true, dryRun: o.dryRun }), o.signal, o.clock);
  const r = results.find((x) => x.ref.kind === 'ConfigMap');
  if (r) o.emit({ type: 'change', id: o.id, object: r.id, change: { kind: 'apply', action: r.action }, dryRun: !!o.dryRun });
}

/** `up` without --source-url: a mirror recorded by an earlier `up` no longer holds, so resume must not use it. */
export async function forgetMirror(o: Writer, root: RootSync): Promise<void> {
  const ref = recordRef(root);
  if (!(await retryTransient(() => o.client.find(ref), o.signal, o.clock))) return;
  o.emit({ type: 'change', id: o.id, object: `ConfigMap/${ref.namespace}/${ref.name}`, change: { kind: 'delete', existed: true }, dryRun: !!o.dryRun });
  if (!o.dryRun) await retryTransient(() => o.client.delete(ref), o.signal, o.clock);
}

/** The mirror URL `up` recorded for this root source, or null (none recorded, or recorded for another source). */
export async function recordedMirror(client: ClusterClient, root: RootSync, signal: AbortSignal, clock?: Clock): Promise<string | null> {
  const live = await retryTransient(() => client.find(recordRef(root)), signal, clock);
  const data = (live?.data ?? {}) as { source?: string; url?: string };
  return data.url && data.source === refKey(root.source) ? data.url : null;
}
