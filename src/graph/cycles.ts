import type { Graph } from './graph.js';

/**
 * Each dependsOn cycle once, as a closed path `[a, b, a]` starting at its smallest key, so the same cycle always
 * prints the same way. Tarjan's strongly connected components, then a shortest loop through each component's root.
 */
export function findCycles(g: Graph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let counter = 0;

  const strongConnect = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter);
    counter++;
    stack.push(v);
    onStack.add(v);
    for (const w of g.deps.get(v) ?? []) {
      if (!index.has(w)) {
        strongConnect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) === index.get(v)) {
      const comp: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        comp.push(w);
      } while (w !== v);
      const selfLoop = comp.length === 1 && (g.deps.get(v) ?? []).includes(v);
      if (comp.length > 1 || selfLoop) components.push(comp);
    }
  };
  for (const key of [...g.deps.keys()].sort()) if (!index.has(key)) strongConnect(key);

  return components.map((comp) => loopThrough(g, [...comp].sort()[0]!, new Set(comp))).sort((a, b) => a[0]!.localeCompare(b[0]!));
}

/** Breadth-first: the shortest path from `start` back to itself inside one component. */
function loopThrough(g: Graph, start: string, comp: Set<string>): string[] {
  const prev = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const v = queue.shift()!;
    for (const w of [...(g.deps.get(v) ?? [])].sort()) {
      if (!comp.has(w)) continue;
      if (w === start) {
        const path = [start];
        for (let cur = v; cur !== start; cur = prev.get(cur)!) path.splice(1, 0, cur);
        return [...path, start];
      }
      if (!prev.has(w)) {
        prev.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start, start];
}
