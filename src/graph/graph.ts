import type { ClusterModel, FluxKustomization, FluxResourceSet } from '../model/flux.js';
import { resolveResourceSetDeps, type ResolvedDependency } from './resourceset-deps.js';

/**
 * The dependsOn and nesting structure of one cluster's Kustomizations and ResourceSets. Pure data, built without
 * I/O. Keys are `namespace/name` for a Kustomization and `ResourceSet/namespace/name` for a ResourceSet.
 */
export interface Graph {
  /** The Kustomizations. */
  nodes: Map<string, FluxKustomization>;
  /** The ResourceSets: nodes too, with their own kind of dependsOn (any object, resolved to the tier applying it). */
  resourceSets: Map<string, FluxResourceSet>;
  /** key -> keys it depends on, only those that exist in the cluster (Kustomizations and ResourceSets alike). */
  deps: Map<string, string[]>;
  /** key -> keys that depend on it. */
  dependents: Map<string, string[]>;
  /** key -> keys of the Kustomizations and ResourceSets its build (or its templates) applies. */
  children: Map<string, string[]>;
  /** Kustomization dependsOn entries whose target is not in the cluster: reported, never silently dropped. */
  missing: { from: string; to: string; line: number | null }[];
  /** Each ResourceSet's dependsOn entries and what each resolved to, by the ResourceSet's key. */
  resourceSetDeps: Map<string, ResolvedDependency[]>;
}

/** A node of either kind. */
export type Tier = FluxKustomization | FluxResourceSet;

/** The node `key` names, of either kind. */
export const tierOf = (g: Graph, key: string): Tier | undefined => g.nodes.get(key) ?? g.resourceSets.get(key);

/** Every node key, Kustomizations first. */
export const allKeys = (g: Graph): string[] => [...g.nodes.keys(), ...g.resourceSets.keys()];

/**
 * Builds the graph of a cluster. A Kustomization defined twice keeps its first definition (`check` reports the
 * duplicate); dependsOn targets listed in `exclude` count as satisfied, as the operator asked standup to ignore them.
 */
export function buildGraph(cluster: ClusterModel, exclude: ReadonlySet<string> = new Set()): Graph {
  const nodes = new Map<string, FluxKustomization>();
  for (const ks of cluster.kustomizations) {
    if (!exclude.has(ks.key) && !nodes.has(ks.key)) nodes.set(ks.key, ks);
  }
  const resourceSets = new Map<string, FluxResourceSet>();
  for (const rs of cluster.resourceSets ?? []) {
    if (!exclude.has(rs.key) && !resourceSets.has(rs.key)) resourceSets.set(rs.key, rs);
  }
  const deps = new Map<string, string[]>();
  const dependents = new Map<string, string[]>();
  const children = new Map<string, string[]>();
  const missing: Graph['missing'] = [];
  for (const key of [...nodes.keys(), ...resourceSets.keys()]) {
    deps.set(key, []);
    dependents.set(key, []);
    children.set(key, []);
  }
  const edge = (from: string, to: string) => {
    const list = deps.get(from)!;
    if (!list.includes(to)) {
      list.push(to);
      dependents.get(to)!.push(from);
    }
  };
  const isNode = (k: string) => nodes.has(k) || resourceSets.has(k);
  for (const [key, ks] of nodes) {
    for (const d of ks.dependsOn) {
      if (exclude.has(d.key)) continue;
      if (!nodes.has(d.key)) {
        missing.push({ from: key, to: d.key, line: d.line });
        continue;
      }
      edge(key, d.key);
    }
    if (ks.parent !== null && isNode(ks.parent) && ks.parent !== key) children.get(ks.parent)!.push(key);
  }
  const resourceSetDeps = new Map<string, ResolvedDependency[]>();
  const parentOf = (k: string) => nodes.get(k)?.parent ?? resourceSets.get(k)?.parent ?? null;
  for (const [key, rs] of resourceSets) {
    const above: string[] = [];
    for (let p = rs.parent; p !== null && !above.includes(p) && p !== key; p = parentOf(p)) above.push(p);
    const resolved = resolveResourceSetDeps(rs, cluster, isNode, exclude, above);
    resourceSetDeps.set(key, resolved);
    for (const r of resolved) if (r.tier !== null && r.tier !== key) edge(key, r.tier);
    if (rs.parent !== null && isNode(rs.parent) && rs.parent !== key) children.get(rs.parent)!.push(key);
  }
  return { nodes, resourceSets, deps, dependents, children, missing, resourceSetDeps };
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
  let cur = tierOf(g, key)?.parent ?? null;
  while (cur !== null && !out.includes(cur) && cur !== key) {
    out.push(cur);
    cur = tierOf(g, cur)?.parent ?? null;
  }
  return out;
}
