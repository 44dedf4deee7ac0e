// An object the install manifests and the sync directory both declare (flux bootstrap's flux-system Namespace is in
// gotk-components.yaml and, often, in the sync directory too) is applied twice in one run under one field manager.
// Server-side apply then makes the second declaration the manager's whole intent: fields only the first declares
// (the install's app.kubernetes.io/* labels, which the flux CLI finds its install by) are removed, and the next run
// puts them back, so a converged cluster is written on every run. Both applies get one merged declaration instead.

import type { K8sObject } from '../cluster/client.js';
import { groupOf } from '../model/ref.js';

const identity = (o: K8sObject): string => `${groupOf(o.apiVersion)}|${o.kind}|${o.metadata.namespace ?? ''}|${o.metadata.name}`;

const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `b` over `a`: maps merge key by key, anything else (lists included) is `b`'s. */
export function mergeDeclarations(a: unknown, b: unknown): unknown {
  if (!isMap(a) || !isMap(b)) return b;
  const out: Record<string, unknown> = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = k in a ? mergeDeclarations(a[k], v) : v;
  return out;
}

/**
 * The install manifests and the sync objects with every object both declare (same group, kind, namespace and name)
 * replaced, in both lists, by one declaration: the install's with the sync's over it (the sync is applied last, and
 * is what the root Kustomization keeps applying). Objects declared once are returned as they are.
 */
export function mergeDeclaredTwice(install: readonly K8sObject[], sync: readonly K8sObject[]): { install: K8sObject[]; sync: K8sObject[] } {
  const inSync = new Map(sync.map((o) => [identity(o), o]));
  const merged = new Map<string, K8sObject>();
  for (const o of install) {
    const s = inSync.get(identity(o));
    if (s) merged.set(identity(o), mergeDeclarations(o, s) as K8sObject);
  }
  if (merged.size === 0) return { install: [...install], sync: [...sync] };
  const pick = (o: K8sObject) => merged.get(identity(o)) ?? o;
  return { install: install.map(pick), sync: sync.map(pick) };
}
