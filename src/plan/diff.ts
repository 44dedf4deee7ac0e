import { transitiveDeps } from '../graph/graph.js';
import { objectId, splitKey } from '../model/ref.js';
import type { PlanContext } from './plan.js';

/** An object whose owning Kustomization changes between two revisions: a delete/recreate risk under prune. */
export interface OwnerMove {
  object: string;
  from: string;
  to: string;
  /** The old owner prunes: it will delete the object if it reconciles before the new owner takes it over. */
  pruned: boolean;
  /** The new owner depends on the old one with the same source, so the old one always goes first (FLUX.md §7). */
  guaranteed: boolean;
  message: string;
}

/** `diff -o json`: what changes from `a` to `b`. A documented contract: add fields, never rename. */
export interface GraphDiff {
  from: string;
  to: string;
  tiersAdded: string[];
  tiersRemoved: string[];
  edgesAdded: { from: string; to: string }[];
  edgesRemoved: { from: string; to: string }[];
  pathsChanged: { key: string; from: string | null; to: string | null }[];
  moves: OwnerMove[];
}

/** Compares two plans. `moves` and `pathsChanged` only when both sides are one cluster (a revision diff). */
export function diffPlans(a: PlanContext, b: PlanContext, labels: { from: string; to: string }): GraphDiff {
  const nodesA = a.graph.nodes;
  const nodesB = b.graph.nodes;
  const edges = (c: PlanContext) =>
    new Map([...c.graph.deps].flatMap(([from, tos]) => tos.map((to) => [`${from} -> ${to}`, { from, to }] as const)));
  const ea = edges(a);
  const eb = edges(b);
  const only = <T>(x: Map<string, T>, y: Map<string, T>) => [...x].filter(([k]) => !y.has(k)).sort(([p], [q]) => p.localeCompare(q)).map(([, v]) => v);
  return {
    from: labels.from,
    to: labels.to,
    tiersAdded: [...nodesB.keys()].filter((k) => !nodesA.has(k)).sort(),
    tiersRemoved: [...nodesA.keys()].filter((k) => !nodesB.has(k)).sort(),
    edgesAdded: only(eb, ea),
    edgesRemoved: only(ea, eb),
    // Between two clusters the entry paths differ by design; a path change matters between revisions of one.
    pathsChanged: a.cluster.name !== b.cluster.name ? [] : [...nodesA.keys()]
      .filter((k) => nodesB.has(k) && nodesA.get(k)!.repoPath !== nodesB.get(k)!.repoPath)
      .sort()
      .map((k) => ({ key: k, from: nodesA.get(k)!.repoPath, to: nodesB.get(k)!.repoPath })),
    moves: a.cluster.name === b.cluster.name ? ownerMoves(a, b) : [],
  };
}

function ownerMoves(a: PlanContext, b: PlanContext): OwnerMove[] {
  const owners = (c: PlanContext) =>
    new Map(c.cluster.objects.filter((o) => o.owner !== null).map((o) => [objectId(o.kind, o.namespace, o.name), o.owner!]));
  const before = owners(a);
  const after = owners(b);
  const moves: OwnerMove[] = [];
  for (const [object, from] of [...before].sort(([x], [y]) => x.localeCompare(y))) {
    const to = after.get(object);
    if (to === undefined || to === from) continue;
    // The old owner's prune setting after the change is what decides, since that is the spec that reconciles.
    const oldOwner = b.graph.nodes.get(from) ?? a.graph.nodes.get(from);
    const newOwner = b.graph.nodes.get(to);
    const pruned = oldOwner?.prune ?? false;
    const sameSource = !!oldOwner && !!newOwner && JSON.stringify(oldOwner.sourceRef) === JSON.stringify(newOwner.sourceRef);
    const guaranteed = pruned && sameSource && transitiveDeps(b.graph, to).has(from);
    moves.push({ object, from, to, pruned, guaranteed, message: moveMessage(object, from, to, pruned, guaranteed) });
  }
  return moves;
}

function moveMessage(object: string, from: string, to: string, pruned: boolean, guaranteed: boolean): string {
  if (!pruned) return `${object} moves from ${from} to ${to}; ${from} does not prune, so ${to} simply takes it over.`;
  const when = guaranteed
    ? `${to} depends on ${from} with the same source, so ${from} always reconciles first: it WILL delete ${object}, and ${to} recreates it later`
    : `if ${from} reconciles before ${to}, it deletes ${object} and ${to} recreates it later`;
  return (
    `${object} moves from ${from} (prune: true) to ${to}: ${when} (a transient outage; a moved Namespace loses ` +
    `everything in it). Safe procedure: first merge the move with prune: false on ${splitKey(from).name} (or label ` +
    `the object kustomize.toolkit.fluxcd.io/prune: disabled), check that its label kustomize.toolkit.fluxcd.io/name ` +
    `now says ${splitKey(to).name}, then restore prune: true.`
  );
}

export const isEmptyDiff = (d: GraphDiff): boolean =>
  d.tiersAdded.length + d.tiersRemoved.length + d.edgesAdded.length + d.edgesRemoved.length + d.pathsChanged.length + d.moves.length === 0;

/** `diff` for people: +/- lines, then the moves with their procedure. */
export function renderDiffText(d: GraphDiff): string {
  const lines = [`--- ${d.from}`, `+++ ${d.to}`];
  for (const k of d.tiersRemoved) lines.push(`- Kustomization ${k}`);
  for (const k of d.tiersAdded) lines.push(`+ Kustomization ${k}`);
  for (const e of d.edgesRemoved) lines.push(`- ${e.from} dependsOn ${e.to}`);
  for (const e of d.edgesAdded) lines.push(`+ ${e.from} dependsOn ${e.to}`);
  for (const p of d.pathsChanged) lines.push(`~ ${p.key} path ${p.from ?? '-'} -> ${p.to ?? '-'}`);
  for (const m of d.moves) lines.push(`${m.pruned ? '! ' : '~ '}${m.message}`);
  if (isEmptyDiff(d)) lines.push('  (no difference in the graph)');
  return lines.join('\n') + '\n';
}
