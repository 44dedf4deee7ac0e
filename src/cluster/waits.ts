// The client's polling waits (deletion, CRD establishment), written once over `find` and an abortable delay, so the
// node client, the runner's reset and the tests share them. An aborted signal ends a wait at once with AbortedError.

import { type K8sObject } from './client.js';
import { AbortedError, ClusterError, ClusterTimeoutError } from './errors.js';
import type { DelayFn } from './watch.js';
import { type ApiRef, refKey } from '../model/ref.js';

export interface WaitDeps {
  find(ref: ApiRef): Promise<K8sObject | undefined>;
  delay: DelayFn;
}

export interface WaitOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
  pollMs?: number;
}

const never = new AbortController().signal;

// A wait outlives a short API outage (a control-plane restart): such a look counts as "not yet", until the deadline.
async function look(d: WaitDeps, ref: ApiRef, last: K8sObject | undefined): Promise<K8sObject | undefined> {
  try {
    return await d.find(ref);
  } catch (e) {
    if (e instanceof ClusterError && (e.reason === 'Unreachable' || e.reason === 'Timeout')) return last ?? { apiVersion: ref.apiVersion, kind: ref.kind, metadata: { name: ref.name } };
    throw e;
  }
}

/** Resolves once the object is gone (its finalizers done); ClusterTimeoutError naming the finalizers otherwise. */
export async function waitDeleted(d: WaitDeps, ref: ApiRef, o: WaitOptions = {}): Promise<void> {
  const deadline = Date.now() + (o.timeoutMs ?? 300_000);
  const signal = o.signal ?? never;
  let live: K8sObject | undefined;
  for (;;) {
    if (signal.aborted) throw new AbortedError(`interrupted while waiting for ${refKey(ref)} to be deleted`);
    live = await look(d, ref, live);
    if (!live) return;
    if (Date.now() >= deadline) {
      const fin = live.metadata.finalizers?.length ? ` (finalizers: ${live.metadata.finalizers.join(', ')})` : '';
      throw new ClusterTimeoutError(`timeout waiting for ${refKey(ref)} to be deleted${fin}`);
    }
    await d.delay(o.pollMs ?? 1000, signal);
  }
}

const CRD = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' } as const;

export const established = (crd: K8sObject | undefined): boolean =>
  ((crd?.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? []).some(
    (c) => c.type === 'Established' && c.status === 'True',
  );

/** Resolves once every named CRD has Established=True; ClusterTimeoutError naming each laggard's conditions otherwise. */
export async function waitEstablished(d: WaitDeps, crdNames: readonly string[], o: WaitOptions = {}): Promise<void> {
  const deadline = Date.now() + (o.timeoutMs ?? 60_000);
  const signal = o.signal ?? never;
  let pending = [...crdNames];
  const last = new Map<string, K8sObject | undefined>();
  for (;;) {
    const next: string[] = [];
    for (const name of pending) {
      const crd = await d.find({ ...CRD, namespace: null, name });
      last.set(name, crd);
      if (!established(crd)) next.push(name);
    }
    pending = next;
    if (pending.length === 0) return;
    if (signal.aborted) throw new AbortedError('interrupted while waiting for CRDs to be Established');
    if (Date.now() >= deadline) {
      const why = pending.map((n) => {
        const conds = ((last.get(n)?.status as { conditions?: { type: string; status: string; message?: string }[] } | undefined)?.conditions ?? [])
          .filter((c) => c.status !== 'True')
          .map((c) => `${c.type}=${c.status}${c.message ? ` (${c.message})` : ''}`);
        return `CustomResourceDefinition/${n}${last.get(n) ? (conds.length ? `: ${conds.join(', ')}` : ': no Established condition') : ': not found'}`;
      });
      throw new ClusterTimeoutError(`timeout waiting for CRDs to be Established: [${why.join(', ')}]`);
    }
    await d.delay(o.pollMs ?? 500, signal);
  }
}
