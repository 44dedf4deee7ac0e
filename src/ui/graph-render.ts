import { isRootSync, type PlanContext } from '../plan/plan.js';
import { splitKey } from '../model/ref.js';

export type EdgeKind = 'dependsOn' | 'nesting';

/** `graph -o json`: `from` dependsOn `to`; for nesting, `from` (the parent) applies `to`. */
export interface GraphJson {
  clusters: {
    name: string;
    entry: string;
    nodes: { key: string; level: number | null; path: string | null; parent: string | null; file: string; wait: boolean; prune: boolean }[];
    edges: { from: string; to: string; kind: EdgeKind }[];
  }[];
}

export function graphJson(contexts: PlanContext[]): GraphJson {
  return {
    clusters: contexts.map(({ cluster, graph, plan }) => ({
      name: cluster.name,
      entry: cluster.entry,
      nodes: plan.kustomizations.map((k) => {
        const ks = graph.nodes.get(k.key)!;
        return { key: k.key, level: k.level, path: k.path, parent: k.parent, file: k.file, wait: ks.wait, prune: ks.prune };
      }),
      edges: edgesOf({ cluster, graph, plan } as PlanContext),
    })),
  };
}

function edgesOf({ graph, plan }: PlanContext): GraphJson['clusters'][number]['edges'] {
  const order = plan.kustomizations.map((k) => k.key);
  return order.flatMap((key) => [
    ...(graph.deps.get(key) ?? []).map((to) => ({ from: key, to, kind: 'dependsOn' as const })),
    ...(graph.children.get(key) ?? []).map((to) => ({ from: key, to, kind: 'nesting' as const })),
  ]);
}

/** Node labels drop the namespace when every node of the cluster shares it, as people name their tiers. */
function labeller(ctx: PlanContext): (key: string) => string {
  const namespaces = new Set([...ctx.graph.nodes.keys()].map((k) => splitKey(k).namespace));
  return namespaces.size === 1 ? (k) => splitKey(k).name : (k) => k;
}

/**
 * The Kustomizations a picture shows: all but the root sync, which applies every tier and would only add an arrow
 * to each (`-o json` keeps it).
 */
function pictured(ctx: PlanContext): string[] {
  return ctx.plan.kustomizations.map((k) => k.key).filter((k) => !isRootSync(ctx.graph.nodes.get(k)!, ctx.cluster.entry));
}

/**
 * Mermaid flowchart (GitHub renders it). Arrows point the way the cluster converges: a dependency before its
 * dependents; dotted arrows go from a parent to the Kustomizations its build applies.
 */
export function renderMermaid(contexts: PlanContext[]): string {
  const lines = ['flowchart LR'];
  contexts.forEach((ctx, ci) => {
    const label = labeller(ctx);
    const shown = pictured(ctx);
    const id = new Map(shown.map((k, i) => [k, `c${ci}n${i}`]));
    const indent = contexts.length > 1 ? '    ' : '  ';
    if (contexts.length > 1) lines.push(`  subgraph c${ci}["${ctx.cluster.name}"]`);
    for (const k of shown) lines.push(`${indent}${id.get(k)}["${label(k)}"]`);
    for (const e of edgesOf(ctx).filter((x) => id.has(x.from) && id.has(x.to))) {
      lines.push(e.kind === 'dependsOn' ? `${indent}${id.get(e.to)} --> ${id.get(e.from)}` : `${indent}${id.get(e.from)} -.-> ${id.get(e.to)}`);
    }
    if (contexts.length > 1) lines.push('  end');
  });
  return lines.join('\n') + '\n';
}

/** Graphviz DOT, one cluster subgraph per cluster, same arrow convention as Mermaid. */
export function renderDot(contexts: PlanContext[]): string {
  const q = (s: string) => JSON.stringify(s);
  const lines = ['digraph standup {', '  rankdir=LR;', '  node [shape=box, style=rounded];'];
  contexts.forEach((ctx, ci) => {
    const label = labeller(ctx);
    const id = (k: string) => q(`${ctx.cluster.name}:${k}`);
    const shown = new Set(pictured(ctx));
    lines.push(`  subgraph ${q(`cluster_${ci}`)} {`, `    label=${q(ctx.cluster.name)};`);
    for (const k of shown) lines.push(`    ${id(k)} [label=${q(label(k))}];`);
    for (const e of edgesOf(ctx).filter((x) => shown.has(x.from) && shown.has(x.to))) {
      lines.push(e.kind === 'dependsOn' ? `    ${id(e.to)} -> ${id(e.from)};` : `    ${id(e.from)} -> ${id(e.to)} [style=dashed];`);
    }
    lines.push('  }');
  });
  lines.push('}');
  return lines.join('\n') + '\n';
}

/**
 * A tree in tier order: the entry's tiers by level, each with the Kustomizations its build applies beneath it.
 * `[n]` is the level; `<- a, b` the dependsOn.
 */
export function renderTree(contexts: PlanContext[]): string {
  return contexts.map(treeOf).join('\n') ;
}

function treeOf(ctx: PlanContext): string {
  const { cluster, graph, plan } = ctx;
  const rank = new Map(plan.kustomizations.map((k, i) => [k.key, i]));
  const level = new Map(plan.kustomizations.map((k) => [k.key, k.level]));
  const byRank = (a: string, b: string) => rank.get(a)! - rank.get(b)!;
  const label = labeller(ctx);
  const lines = [`${cluster.name} (${cluster.entry})`];
  const seen = new Set<string>();
  const walk = (keys: string[], prefix: string) => {
    keys.forEach((key, i) => {
      const last = i === keys.length - 1;
      const lvl = level.get(key);
      const deps = graph.deps.get(key) ?? [];
      lines.push(`${prefix}${last ? '└── ' : '├── '}[${lvl ?? 'cycle'}] ${label(key)}${deps.length ? `  <- ${deps.map(label).join(', ')}` : ''}`);
      if (seen.has(key)) return;
      seen.add(key);
      const kids = (graph.children.get(key) ?? []).filter((k) => !plan.tiers.includes(k)).sort(byRank);
      walk(kids, prefix + (last ? '    ' : '│   '));
    });
  };
  const roots = plan.tiers.length > 0 ? plan.tiers : plan.kustomizations.filter((k) => k.parent === null && !isRootSync(graph.nodes.get(k.key)!, cluster.entry)).map((k) => k.key);
  walk([...roots].sort(byRank), '');
  // Kustomizations no tier reaches (a root sync's siblings, orphans under a loop) still appear, so nothing is hidden.
  const rest = plan.kustomizations.map((k) => k.key).filter((k) => !seen.has(k) && !isRootSync(graph.nodes.get(k)!, cluster.entry));
  if (rest.length) {
    lines.push('(not under a tier)');
    walk(rest, '');
  }
  return lines.join('\n') + '\n';
}
