import { parseKsKey } from '../model/ref.js';
import type { ClusterPlan } from './plan.js';
import { nearNames } from '../model/near.js';

/**
 * Which Kustomizations a command lists, as kubectl and flux select them: `-n NAMESPACE` (none: every namespace,
 * as `-A`) and positional names, each `name` or `namespace/name`.
 */
export interface Selection {
  namespace?: string;
  names: string[];
}

/** A plan narrowed to a selection; `selection` (in `plan -o json` too) says what was asked and out of how many. */
export interface SelectedPlan extends ClusterPlan {
  selection?: { namespace: string | null; names: string[]; total: number };
}

export const selectsAll = (s: Selection): boolean => s.namespace === undefined && s.names.length === 0;

/** Whether `key` (`namespace/name`) is one of the selected Kustomizations. */
export function matches(key: string, s: Selection): boolean {
  const { namespace, name } = parseKsKey(key);
  if (s.namespace !== undefined && namespace !== s.namespace) return false;
  if (s.names.length === 0) return true;
  return s.names.some((n) => (n.includes('/') ? n === key : n === name));
}

/**
 * The plan with only the selected Kustomizations. Levels keep their numbers (a level is a place in the whole
 * cluster's order, and `level` in each Kustomization still indexes `levels`); TIER_ORDER keeps its order.
 * Pure; `unmatched` lists the names that matched nothing here.
 */
export function selectPlan(plan: ClusterPlan, s: Selection): { plan: SelectedPlan; unmatched: string[] } {
  if (selectsAll(s)) return { plan, unmatched: [] };
  const keep = (k: string) => matches(k, s);
  const unmatched = s.names.filter((n) => !plan.kustomizations.some((k) => matches(k.key, { namespace: s.namespace, names: [n] })));
  return {
    plan: {
      ...plan,
      levels: plan.levels.map((level) => level.filter(keep)),
      tiers: plan.tiers.filter(keep),
      kustomizations: plan.kustomizations.filter((k) => keep(k.key)),
      selection: { namespace: s.namespace ?? null, names: s.names, total: plan.kustomizations.length },
    },
    unmatched,
  };
}

/** For a name that matched nothing: the closest names the cluster has, for the hint. */
export const closeNames = (plan: ClusterPlan, wanted: string): string[] =>
  unmatchedNames([plan.kustomizations.map((k) => k.key)], { names: [wanted] }).near;

/**
 * The names of a selection that match nothing in any of the clusters (`keysByCluster`: each cluster's
 * Kustomization keys), and the close names those clusters have, for the error that lists them all at once.
 */
export function unmatchedNames(keysByCluster: readonly (readonly string[])[], s: Selection): { missing: string[]; near: string[] } {
  const missing = s.names.filter((n) => keysByCluster.every((keys) => !keys.some((k) => matches(k, { namespace: s.namespace, names: [n] }))));
  const all = [...new Set(keysByCluster.flat())];
  const near = missing.flatMap((n) => {
    const target = n.includes('/') ? parseKsKey(n).name : n;
    const close = nearNames(target, [...new Set(all.map((k) => parseKsKey(k).name))]);
    return close.flatMap((name) => all.filter((k) => parseKsKey(k).name === name).sort());
  });
  return { missing, near: [...new Set(near)] };
}

/** The namespaces that hold Kustomizations, sorted: what an `-n` that selects nothing is told to pick from. */
export const namespacesOf = (keys: Iterable<string>): string[] => [...new Set([...keys].map((k) => parseKsKey(k).namespace))].sort();
