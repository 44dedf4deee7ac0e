import type { Graph } from './graph.js';

export interface Levels {
  /** Level 0 depends on nothing; level n depends only on levels below n. Keys sorted within a level. */
  levels: string[][];
  /** Keys that sit on or behind a cycle and so have no level. */
  blocked: string[];
}

/**
 * Kahn's algorithm over dependsOn edges. Never throws: a cycle leaves its members (and their dependents) blocked.
 * What a ResourceSet generates exists only once the ResourceSet has reconciled (after its own dependsOn), so it
 * comes after the ResourceSet too; a ResourceSet waiting on what it generates itself is blocked, as it deadlocks.
 */
export function computeLevels(g: Graph): Levels {
  const gated = new Map<string, string[]>();
  const gateOf = (key: string): string | null => {
    const parent = g.nodes.get(key)?.parent ?? g.resourceSets.get(key)?.parent ?? null;
    return parent !== null && g.resourceSets.has(parent) && parent !== key ? parent : null;
  };
  const remaining = new Map<string, number>();
  for (const [key, deps] of g.deps) {
    const gate = gateOf(key);
    if (gate !== null) gated.set(gate, [...(gated.get(gate) ?? []), key]);
    remaining.set(key, deps.length + (gate !== null ? 1 : 0));
  }
  const levels: string[][] = [];
  let frontier = [...remaining].filter(([, n]) => n === 0).map(([k]) => k);
  const placed = new Set<string>();
  while (frontier.length > 0) {
    frontier.sort();
    levels.push(frontier);
    const next: string[] = [];
    for (const key of frontier) {
      placed.add(key);
      for (const dependent of [...(g.dependents.get(key) ?? []), ...(gated.get(key) ?? [])]) {
        const left = remaining.get(dependent)! - 1;
        remaining.set(dependent, left);
        if (left === 0) next.push(dependent);
      }
    }
    frontier = next;
  }
  const blocked = [...g.deps.keys()].filter((k) => !placed.has(k)).sort();
  return { levels, blocked };
}

/** key -> level index, for the keys that have one. */
export function levelIndex(l: Levels): Map<string, number> {
  const out = new Map<string, number>();
  l.levels.forEach((keys, i) => keys.forEach((k) => out.set(k, i)));
  return out;
}
