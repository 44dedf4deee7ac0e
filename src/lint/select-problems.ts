import type { ClusterModel } from '../model/flux.js';
import type { Problem } from '../model/problem.js';
import { refKey } from '../model/ref.js';
import { matches, selectsAll, type Selection } from '../plan/select.js';

/**
 * The problems about the selected Kustomizations (`check -n`, `check NAME...`): a problem is about the tier it names,
 * the Kustomization it is on, the Kustomization that applies its object, or (a cycle) any Kustomization on it. A problem about no Kustomization (a
 * tiers.yaml key, a legacy script) is about none, so a selection leaves it out (the summary counts what it left out).
 */
export function selectProblems(problems: readonly Problem[], clusters: readonly ClusterModel[], s: Selection): Problem[] {
  if (selectsAll(s)) return [...problems];
  const owners = new Map<string, Set<string>>();
  for (const c of clusters) {
    for (const o of c.objects) {
      if (!o.owner) continue;
      const key = refKey(o);
      owners.set(key, (owners.get(key) ?? new Set()).add(o.owner));
    }
  }
  const about = (p: Problem): string[] => [
    ...(p.tier ? [p.tier] : []),
    ...(p.object?.startsWith('Kustomization/') ? [p.object.slice('Kustomization/'.length)] : []),
    ...(p.object ? owners.get(p.object) ?? [] : []),
    // A cycle is about every Kustomization on it (its target is the path: `a -> b -> a`).
    ...(p.code === 'cycle' && p.target ? p.target.split(/\s*->\s*/) : []),
  ];
  return problems.filter((p) => about(p).some((k) => matches(k, s)));
}
