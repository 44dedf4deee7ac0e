import type { ClusterModel, FluxKustomization } from '../model/flux.js';

/** The dependsOn and nesting structure of one cluster's Kustomizations. Pure data, built without I/O. */
export interface Graph {
  nodes: Map<string, FluxKustomization>;
  /** key -> keys it depends on, only those that exist in the cluster. */
  deps: Map<string, string[]>;
  /** key -> keys that depend on it. */
  dependents: Map<string, string[]>;
  /** key -> keys of the Kustomizations its build applies. */
  children: Map<string, string[]>;
  /** dependsOn entries whose target is not in the cluster: reported, never silently dropped. */
  missing: { from: string; to: string; line: number | null }[];
}

/**
 * Builds the graph of a cluster. A Kustomization defined twice keeps its first definition (`check` reports the
 * duplicate); dependsOn targets listed in `exclude` count as satisfied, as the operator asked standup to ignore them.
 */
export function buildGraph(cluster: ClusterModel, exclude: ReadonlySet<string> = new Set()): Graph {
  const nodes = new Map<string, FluxKustomization>();
  for (const ks of cluster.kustomizations) {
    if (!exclude.has(ks.key) && !nodes.has(ks.key)) nodes.set(ks.key, ks);
  }
  const deps = new Map<string, string[]>();
  const dependents = new Map<string, string[]>();
  const children = new Map<string, string[]>();
  const missing: Graph['missing'] = [];
  for (const key of nodes.keys()) {
    deps.set(key, []);
    dependents.set(key, []);
    children.set(key, []);
  }
  for (const [key, ks] of nodes) {
    for (const d of ks.dependsOn) {
      if (exclude.has(d.key)) continue;
      if (!nodes.has(d.key)) {
        missing.push({ from: key, to: d.key, line: d.line });
        continue;
      }
      const list = deps.get(key)!;
      if (!list.includes(d.key)) {
        list.push(d.key);
        dependents.get(d.key)!.push(key);
      }
    }
    if (ks.parent !== null && nodes.has(ks.parent) && ks.parent !== key) children.get(ks.parent)!.push(key);
  }
  return { nodes, deps, dependents, children, missing };
}

/** Every key `key` depends on, directly or through others (not including itself unless in a cycle). */
export function transitiveDeps(g: Graph, key: string): Set<string> {
  const seen = new Set<string>();
  const stack = [...(g.deps.get(key) ?? [])];
  while (stack.length > 0) {
    const k = stack.pop()!;
    if (seen.has(k)) continue;
    seen.add(k);
    stack.push(...(g.deps.get(k) ?? []));
  }
  return seen;
}

/** The chain of parents above `key`, nearest first. Stops on a nesting loop (a self-applying root). */
export function ancestors(g: Graph, key: string): string[] {
  const out: string[] = [];
  let cur = g.nodes.get(key)?.parent ?? null;
  while (cur !== null && !out.includes(cur) && cur !== key) {
    out.push(cur);
    cur = g.nodes.get(cur)?.parent ?? null;
  }
  return out;
}
