// kustomize-controller's inventory: what a Kustomization applied, one entry per object, with ids
// `<namespace>_<name>_<group>_<Kind>` (cli-utils' ObjMetadata; namespace empty for cluster-scoped objects, group empty
// for the core API). Names, namespaces and groups never hold `_`, so the id splits into exactly four parts. An entry
// is the object's reference and its API group (an id has no version).

import type { ObjRef } from '../model/ref.js';

export interface WithInventory {
  status?: { inventory?: { entries?: { id: string }[] } };
}

/** One inventory id, or null for an id of another shape. */
export function parseInventoryId(id: string): (ObjRef & { group: string }) | null {
  const parts = id.split('_');
  if (parts.length !== 4) return null;
  const [namespace, name, group, kind] = parts as [string, string, string, string];
  return name && kind ? { kind, namespace: namespace || null, name, group } : null;
}

/** Every object in a Kustomization's inventory, in its order. */
export const inventoryObjects = (ks: WithInventory | undefined): (ObjRef & { group: string })[] =>
  (ks?.status?.inventory?.entries ?? []).map((e) => parseInventoryId(e.id)).filter((o): o is ObjRef & { group: string } => o !== null);
