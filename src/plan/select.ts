import { splitKey } from '../model/ref.js';
import type { ClusterPlan } from './plan.js';

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
  const { namespace, name } = splitKey(key);
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

/** For a name that matched nothing: the closest names the cluster has (same namespace first), for the hint. */
export function closeNames(plan: ClusterPlan, wanted: string, max = 3): string[] {
  const target = wanted.includes('/') ? splitKey(wanted).name : wanted;
  const scored = plan.kustomizations
    .map((k) => ({ key: k.key, d: distance(splitKey(k.key).name, target) }))
    .filter((x) => x.d <= Math.max(2, Math.floor(target.length / 3)))
    .sort((a, b) => a.d - b.d || a.key.localeCompare(b.key));
  return scored.slice(0, max).map((x) => x.key);
}

/** Levenshtein distance; names are short, so the quadratic table is fine. */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cur = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
  }
  return row[b.length]!;
}
