// A `no matches for kind` dry-run failure is the second-order CRD deadlock only when nothing will ever create the CRD.
// When the kind is declared in runtimeCrds (or inferred as check infers it: its group's other CRDs are in git) and an
// object of its createdBy kind already exists (the split layout: the tier that applies the CDI is Ready, and
// cdi-operator is installing StorageProfile's CRD right now), the CRD is on its way: the tier waits for it, within its
// timeout, instead of failing at once. Read from the run's watches. Pure.

import type { K8sObject } from '../cluster/client.js';
import type { MissingCrd } from '../status/diagnose.js';
import type { Look } from './live-state.js';

export interface RuntimeCrdDecl {
  kind: string;
  group: string;
  createdBy?: { kind: string; group: string };
  /** Not in tiers.yaml: inferred from git, as check's runtime-crd rule infers it. */
  inferred?: boolean;
}

interface CrdLike {
  spec?: { group?: string; names?: { kind?: string }; versions?: { name: string; served?: boolean }[] };
}

const CRD_KIND = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' } as const;

/**
 * A status line when the missing CRD is expected from an operator that has its trigger; null when it is not (or the
 * cluster cannot say); undefined while the watches that tell are still listing.
 */
export function crdOnItsWay(d: MissingCrd, decls: readonly RuntimeCrdDecl[], look: Look): string | null | undefined {
  const triggers = decls.filter((x) => x.kind === d.kind && x.group === d.group && x.createdBy);
  if (triggers.length === 0) return null;
  const crds = look(CRD_KIND);
  if (!crds) return crds;
  let listing = false;
  for (const decl of triggers) {
    const by = decl.createdBy!;
    const trigger = [...crds.values()].find((c) => (c as CrdLike).spec?.group === by.group && (c as CrdLike).spec?.names?.kind === by.kind) as CrdLike | undefined;
    const version = trigger?.spec?.versions?.find((v) => v.served !== false)?.name;
    if (!version) continue;
    const objects = look({ apiVersion: `${by.group}/${version}`, kind: by.kind });
    if (objects === undefined) listing = true;
    const first: K8sObject | undefined = objects?.values().next().value;
    if (!first) continue;
    const m = first.metadata;
    const why = decl.inferred ? ` (inferred: ${by.group}'s other CRDs are in git, ${d.kind}'s is not)` : '';
    return `waiting for the ${d.kind} CRD (${d.group}): its operator creates it once it sees ${by.kind}/${m.namespace ? `${m.namespace}/` : ''}${m.name}, which exists${why}`;
  }
  return listing ? undefined : null;
}

/** The API groups with a CRD in the cluster (for the missing-kind diagnosis); empty when they cannot be read. */
export function liveCrdGroups(look: Look): ReadonlySet<string> | undefined {
  const crds = look(CRD_KIND);
  if (crds === undefined) return undefined;
  return new Set([...(crds ?? new Map()).values()].map((c) => (c as CrdLike).spec?.group).filter((g): g is string => !!g));
}
