// A `no matches for kind` dry-run failure is the second-order CRD deadlock only when nothing will ever create the CRD.
// When the kind is declared in runtimeCrds and an object of its createdBy kind already exists (the split layout: the
// tier that applies the CDI is Ready, and cdi-operator is installing StorageProfile's CRD right now), the CRD is on its
// way: the tier waits for it, within its timeout, instead of failing at once. Read from the run's watches. Pure.

import type { K8sObject } from '../cluster/client.js';
import type { MissingCrd } from '../status/diagnose.js';
import type { Look } from './live-state.js';

export interface RuntimeCrdDecl {
  kind: string;
  group: string;
  createdBy?: { kind: string; group: string };
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
  const decl = decls.find((x) => x.kind === d.kind && x.group === d.group);
  if (!decl?.createdBy) return null;
  const by = decl.createdBy;
  const crds = look(CRD_KIND);
  if (!crds) return crds;
  const trigger = [...crds.values()].find((c) => (c as CrdLike).spec?.group === by.group && (c as CrdLike).spec?.names?.kind === by.kind) as CrdLike | undefined;
  const version = trigger?.spec?.versions?.find((v) => v.served !== false)?.name;
  if (!version) return null;
  const objects = look({ apiVersion: `${by.group}/${version}`, kind: by.kind });
  if (!objects) return objects;
  const first: K8sObject | undefined = objects.values().next().value;
  if (!first) return null;
  const m = first.metadata;
  return `waiting for the ${d.kind} CRD (${d.group}): its operator creates it once it sees ${by.kind}/${m.namespace ? `${m.namespace}/` : ''}${m.name}, which exists`;
}

/** The API groups with a CRD in the cluster (for the missing-kind diagnosis); empty when they cannot be read. */
export function liveCrdGroups(look: Look): ReadonlySet<string> | undefined {
  const crds = look(CRD_KIND);
  if (crds === undefined) return undefined;
  return new Set([...(crds ?? new Map()).values()].map((c) => (c as CrdLike).spec?.group).filter((g): g is string => !!g));
}
