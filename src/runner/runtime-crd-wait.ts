// A `no matches for kind` dry-run failure is the seeds' deadlock only when nothing will ever create the CRD. When the
// kind is declared in runtimeCrds and an object of its createdBy kind already exists (the split layout: the tier
// that applies the CDI is Ready, and cdi-operator is installing StorageProfile's CRD right now), the CRD is on its
// way: the tier waits for it, within its timeout, instead of failing at once.
import type { ClusterClient } from '../cluster/client.js';
import type { MissingCrd } from '../status/diagnose.js';

export interface RuntimeCrdDecl {
  kind: string;
  group: string;
  createdBy?: { kind: string; group: string };
}

interface CrdLike {
  spec?: { group?: string; names?: { kind?: string }; versions?: { name: string; served?: boolean }[] };
}

/** A status line when the missing CRD is expected from an operator that has its trigger; null when it is not. */
export async function crdOnItsWay(client: ClusterClient, d: MissingCrd, decls: readonly RuntimeCrdDecl[]): Promise<string | null> {
  const decl = decls.find((x) => x.kind === d.kind && x.group === d.group);
  if (!decl?.createdBy) return null;
  try {
    const crds = (await client.list({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' })).items as CrdLike[];
    const trigger = crds.find((c) => c.spec?.group === decl.createdBy!.group && c.spec?.names?.kind === decl.createdBy!.kind);
    const version = trigger?.spec?.versions?.find((v) => v.served !== false)?.name;
    if (!version) return null;
    const objects = await client.list({ apiVersion: `${decl.createdBy.group}/${version}`, kind: decl.createdBy.kind });
    if (objects.items.length === 0) return null;
    const by = objects.items[0]!.metadata;
    return `waiting for the ${d.kind} CRD (${d.group}): its operator creates it once it sees ${decl.createdBy.kind}/${by.namespace ? `${by.namespace}/` : ''}${by.name}, which exists`;
  } catch {
    return null;
  }
}
