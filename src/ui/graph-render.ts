import { isRootSync, type PlanContext } from '../plan/plan.js';
import { isResourceSetKey, nodeKeyParts } from '../model/flux.js';
import { matches, selectsAll, type Selection } from '../plan/select.js';

export type EdgeKind = 'dependsOn' | 'nesting';

/** `graph -o json`: `from` dependsOn `to`; for nesting, `from` (the parent) applies `to`. */
export interface GraphJson {
  clusters: {
    name: string;
    entry: string;
    /** `kind: 'ResourceSet'` only on a ResourceSet's node (key `ResourceSet/namespace/name`); Kustomizations have none. */
    nodes: { key: string; level: number | null; path: string | null; parent: string | null; file: string; wait: boolean; prune: boolean; kind?: 'ResourceSet' }[];
    edges: { from: string; to: string; kind: EdgeKind }[];
    /** With -n or names: what was asked, and how many nodes the cluster has (`nodes` holds the selected ones). */
    selection?: { namespace: string | null; names: string[]; total: number };
  }[];
}

/** What the graph commands draw: with a selection (-n, names) only those nodes; `header: false` drops the cluster line. */
export interface GraphView {
  selection?: Selection;
  header?: boolean;
}

/** The nodes a selection picks (a ResourceSet by its namespace and name too), or null when it picks every node. */
function selectedNodes(ctx: PlanContext, s: Selection | undefined): Set<string> | null {
  if (!s || selectsAll(s)) return null;
  return new Set(nodeOrder(ctx).filter((key) => {
    const { namespace, name } = nodeKeyParts(key);
    return matches(`${namespace}/${name}`, s);
  }));
}

export function graphJson(contexts: PlanContext[], view: GraphView = {}): GraphJson {
  return {
    clusters: contexts.map(({ cluster, graph, plan }) => {
      const ctx = { cluster, graph, plan } as PlanContext;
      const picked = selectedNodes(ctx, view.selection);
      const keep = (k: string) => !picked || picked.has(k);
      return {
      name: cluster.name,
      entry: cluster.entry,
      nodes: nodeOrder(ctx).filter(keep).map((key) => {
        const ks = graph.nodes.get(key);
        if (ks) {
          const k = plan.kustomizations.find((x) => x.key === key)!;
          return { key, level: k.level, path: k.path, parent: k.parent, file: k.file, wait: ks.wait, prune: ks.prune };
        }
        const r = plan.resourceSets!.find((x) => x.key === key)!;
        // A ResourceSet prunes what it no longer generates (objects annotated prune: disabled aside).
        return { key, level: r.level, path: null, parent: r.parent, file: r.file, wait: r.wait, prune: true, kind: 'ResourceSet' as const };
      }),
      edges: edgesOf(ctx).filter((e) => keep(e.from)),
      ...(picked ? { selection: { namespace: view.selection!.namespace ?? null, names: view.selection!.names, total: nodeOrder(ctx).length } } : {}),
      };
    }),
  };
}

/** Every node in plan order: the levels, then the nodes on or behind a cycle; Kustomizations and ResourceSets. */
function nodeOrder({ plan }: PlanContext): string[] {
  const rs = plan.resourceSets ?? [];
  if (rs.length === 0) return plan.kustomizations.map((k) => k.key);
  const all = new Set([...plan.kustomizations.map((k) => k.key), ...rs.map((r) => r.key)]);
  const placed = plan.levels.flat().filter((k) => all.has(k));
  return [...placed, ...[...all].filter((k) => !placed.includes(k)).sort()];
}

/** A node's parent, level and whether it is the root sync, for either kind. */
function nodeInfo({ graph, plan, cluster }: PlanContext, key: string): { parent: string | null; level: number | null; root: boolean } {
  const ks = graph.nodes.get(key);
  if (ks) return { parent: ks.parent, level: plan.kustomizations.find((k) => k.key === key)?.level ?? null, root: isRootSync(ks, cluster.entry) };
  const r = plan.resourceSets?.find((x) => x.key === key);
  return { parent: r?.parent ?? null, level: r?.level ?? null, root: false };
}

function edgesOf(ctx: PlanContext): GraphJson['clusters'][number]['edges'] {
  const { graph } = ctx;
  return nodeOrder(ctx).flatMap((key) => [
    ...(graph.deps.get(key) ?? []).map((to) => ({ from: key, to, kind: 'dependsOn' as const })),
    ...(graph.children.get(key) ?? []).map((to) => ({ from: key, to, kind: 'nesting' as const })),
  ]);
}

/** Node labels drop the namespace when every node of the cluster shares it, as people name their tiers. */
function labeller(ctx: PlanContext): (key: string) => string {
  const namespaces = new Set([...ctx.graph.nodes.keys()].map((k) => nodeKeyParts(k).namespace));
  const shared = namespaces.size === 1 ? [...namespaces][0]! : null;
  // A ResourceSet keeps its namespace unless it is the one every Kustomization shares.
  const plain = (k: string) => {
    const { namespace, name } = nodeKeyParts(k);
    if (namespace === shared) return name;
    return isResourceSetKey(k) ? `${namespace}/${name}` : k;
  };
  return (k) => (isResourceSetKey(k) ? `${plain(k)} (ResourceSet)` : plain(k));
}

/**
 * The Kustomizations a picture shows: all but the root sync, which applies every tier and would only add an arrow
 * to each (`-o json` keeps it).
 */
function pictured(ctx: PlanContext, s?: Selection): string[] {
  const picked = selectedNodes(ctx, s);
  // A selection is drawn with what it depends on, so no arrow of it points nowhere.
  const shown = picked && new Set([...picked, ...[...picked].flatMap((k) => ctx.graph.deps.get(k) ?? [])]);
  return nodeOrder(ctx).filter((k) => !nodeInfo(ctx, k).root && (!shown || shown.has(k)));
}

/**
 * Mermaid flowchart (GitHub renders it). Arrows point the way the cluster converges: a dependency before its
 * dependents; dotted arrows go from a parent to the Kustomizations its build applies.
 */
export function renderMermaid(contexts: PlanContext[], view: GraphView = {}): string {
  const lines = ['flowchart LR'];
  contexts.forEach((ctx, ci) => {
    const label = labeller(ctx);
    const shown = pictured(ctx, view.selection);
    const id = new Map(shown.map((k, i) => [k, `c${ci}n${i}`]));
    const indent = contexts.length > 1 ? '    ' : '  ';
    if (contexts.length > 1) lines.push(`  subgraph c${ci}["${ctx.cluster.name}"]`);
    for (const k of shown) lines.push(`${indent}${id.get(k)}["${label(k)}"]`);
    for (const e of edgesOf(ctx).filter((x) => id.has(x.from) && id.has(x.to))) {
      lines.push(e.kind === 'dependsOn' ? `${indent}${id.get(e.to)} --> ${id.get(e.from)}` : `${indent}${id.get(e.from)} -.-> ${id.get(e.to)}`);
    }
    if (contexts.length > 1) lines.push('  end');
  });
  return lines.length ? lines.join('\n') + '\n' : '';
}

/** Graphviz DOT, one cluster subgraph per cluster, same arrow convention as Mermaid. */
export function renderDot(contexts: PlanContext[], view: GraphView = {}): string {
  const q = (s: string) => JSON.stringify(s);
  const lines = ['digraph standup {', '  rankdir=LR;', '  node [shape=box, style=rounded];'];
  contexts.forEach((ctx, ci) => {
    const label = labeller(ctx);
    const id = (k: string) => q(`${ctx.cluster.name}:${k}`);
    const shown = new Set(pictured(ctx, view.selection));
    lines.push(`  subgraph ${q(`cluster_${ci}`)} {`, `    label=${q(ctx.cluster.name)};`);
    for (const k of shown) lines.push(`    ${id(k)} [label=${q(label(k))}];`);
    for (const e of edgesOf(ctx).filter((x) => shown.has(x.from) && shown.has(x.to))) {
      lines.push(e.kind === 'dependsOn' ? `    ${id(e.to)} -> ${id(e.from)};` : `    ${id(e.from)} -> ${id(e.to)} [style=dashed];`);
    }
    lines.push('  }');
  });
  lines.push('}');
  return lines.length ? lines.join('\n') + '\n' : '';
}

/**
 * A tree in tier order: the entry's tiers by level, each with the Kustomizations its build applies beneath it.
 * `[n]` is the level; `<- a, b` the dependsOn.
 */
export function renderTree(contexts: PlanContext[], view: GraphView = {}): string {
  return contexts.map((c) => treeOf(c, view)).join(view.header === false ? '' : '\n');
}

function treeOf(ctx: PlanContext, view: GraphView): string {
  const { cluster, graph, plan } = ctx;
  const order = nodeOrder(ctx);
  const rank = new Map(order.map((k, i) => [k, i]));
  const level = new Map(order.map((k) => [k, nodeInfo(ctx, k).level]));
  const byRank = (a: string, b: string) => rank.get(a)! - rank.get(b)!;
  const label = labeller(ctx);
  const lines = view.header === false ? [] : [`${cluster.name} (${cluster.entry})`];
  // A selection is drawn where it sits in the tree: the selected nodes and the tiers that apply them.
  const picked = selectedNodes(ctx, view.selection);
  const within = picked && new Set([...picked].flatMap((k) => {
    const up: string[] = [];
    for (let at: string | null = k; at && !up.includes(at); at = nodeInfo(ctx, at).parent) up.push(at);
    return up;
  }));
  const seen = new Set<string>();
  const walk = (all: string[], prefix: string) => {
    const keys = within ? all.filter((k) => within.has(k)) : all;
    keys.forEach((key, i) => {
      const last = i === keys.length - 1;
      const lvl = level.get(key);
      const deps = graph.deps.get(key) ?? [];
      lines.push(`${prefix}${last ? '└── ' : '├── '}[${lvl ?? 'cycle'}] ${label(key)}${deps.length ? `  <- ${deps.map(label).join(', ')}` : ''}`);
      if (seen.has(key)) return;
      seen.add(key);
      const kids = (graph.children.get(key) ?? []).filter((k) => !tiers.includes(k) || topResourceSets.includes(key)).sort(byRank);
      walk(kids, prefix + (last ? '    ' : '│   '));
    });
  };
  // ResourceSets the entry applies (itself or through the root sync) are tiers of the tree too.
  const topResourceSets = (plan.resourceSets ?? []).filter((r) => r.parent === null || nodeInfo(ctx, r.parent).root).map((r) => r.key);
  // The tiers a top-level ResourceSet generates are drawn under it.
  const tiers = [...plan.tiers.filter((k) => !topResourceSets.includes(graph.nodes.get(k)?.parent ?? '')), ...topResourceSets];
  const roots = tiers.length > 0 ? tiers : plan.kustomizations.filter((k) => k.parent === null && !isRootSync(graph.nodes.get(k.key)!, cluster.entry)).map((k) => k.key);
  walk([...roots].sort(byRank), '');
  // Kustomizations no tier reaches (a root sync's siblings, orphans under a loop) still appear, so nothing is hidden.
  const rest = order.filter((k) => !seen.has(k) && !nodeInfo(ctx, k).root && (!within || within.has(k)));
  if (rest.length) {
    lines.push('(not under a tier)');
    walk(rest, '');
  }
  return lines.length ? lines.join('\n') + '\n' : '';
}
