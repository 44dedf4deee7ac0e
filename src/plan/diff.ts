import { transitiveDeps } from '../graph/graph.js';
import type { Problem } from '../model/problem.js';
import { refKey, parseKsKey } from '../model/ref.js';
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
  /**
   * The tiers that depend on the old owner (before or after the change), the new owner left out: what counted on the
   * object existing once the old owner was Ready.
   */
  dependents: string[];
  /** Of `dependents`, those that do not depend on the new owner after the change: the guarantee is lost for them. */
  unguarded: string[];
  message: string;
}

/** `diff -o json`: what changes from `a` to `b`. A documented contract: add fields, never rename. */
export interface GraphDiff {
  from: string;
  to: string;
  tiersAdded: string[];
  tiersRemoved: string[];
  /** flux-operator ResourceSets (`ResourceSet/ns/name`) added and removed; their dependsOn are in the edges. */
  resourceSetsAdded: string[];
  resourceSetsRemoved: string[];
  edgesAdded: { from: string; to: string }[];
  edgesRemoved: { from: string; to: string }[];
  pathsChanged: { key: string; from: string | null; to: string | null }[];
  moves: OwnerMove[];
  /** Kustomizations on both sides whose level differs (null: on or behind a cycle): a tier that now starts later. */
  levelsChanged: { key: string; from: number | null; to: number | null }[];
  /** A revision diff: check's problems the newer side has and the older has not (matched by fingerprint). */
  problemsAdded?: (Problem & { fingerprint: string })[];
  /** A revision diff: problems of the older side the newer one no longer has. */
  problemsFixed?: { fingerprint: string; code: string; severity: string; object: string | null; message: string }[];
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
    resourceSetsAdded: [...b.graph.resourceSets.keys()].filter((k) => !a.graph.resourceSets.has(k)).sort(),
    resourceSetsRemoved: [...a.graph.resourceSets.keys()].filter((k) => !b.graph.resourceSets.has(k)).sort(),
    edgesAdded: only(eb, ea),
    edgesRemoved: only(ea, eb),
    // Between two clusters the entry paths differ by design; a path change matters between revisions of one.
    pathsChanged: a.cluster.name !== b.cluster.name ? [] : [...nodesA.keys()]
      .filter((k) => nodesB.has(k) && nodesA.get(k)!.repoPath !== nodesB.get(k)!.repoPath)
      .sort()
      .map((k) => ({ key: k, from: nodesA.get(k)!.repoPath, to: nodesB.get(k)!.repoPath })),
    moves: a.cluster.name === b.cluster.name ? ownerMoves(a, b) : [],
    levelsChanged: levelChanges(a, b),
  };
}

function levelChanges(a: PlanContext, b: PlanContext): GraphDiff['levelsChanged'] {
  const before = new Map(a.plan.kustomizations.map((k) => [k.key, k.level]));
  return b.plan.kustomizations
    .filter((k) => before.has(k.key) && before.get(k.key) !== k.level)
    .map((k) => ({ key: k.key, from: before.get(k.key)!, to: k.level }))
    .sort((x, y) => x.key.localeCompare(y.key));
}

function ownerMoves(a: PlanContext, b: PlanContext): OwnerMove[] {
  const owners = (c: PlanContext) =>
    new Map(c.cluster.objects.filter((o) => o.owner !== null).map((o) => [refKey(o), o.owner!]));
  const before = owners(a);
  const after = owners(b);
  const moves: OwnerMove[] = [];
  for (const [object, from] of [...before].sort(([x], [y]) => x.localeCompare(y))) {
    const to = after.get(object);
    if (to === undefined || to === from) continue;
    // The old owner's prune setting after the change is what decides, since that is the spec that reconciles.
    const oldOwner = b.graph.nodes.get(from) ?? a.graph.nodes.get(from);
    const newOwner = b.graph.nodes.get(to);
    // A ResourceSet garbage-collects what it no longer generates, as a Kustomization with prune: true.
    const pruned = oldOwner?.prune ?? (b.graph.resourceSets.has(from) || a.graph.resourceSets.has(from));
    const sameSource = !!oldOwner && !!newOwner && JSON.stringify(oldOwner.sourceRef) === JSON.stringify(newOwner.sourceRef);
    const guaranteed = pruned && sameSource && transitiveDeps(b.graph, to).has(from);
    const dependents = [...new Set([...(a.graph.dependents.get(from) ?? []), ...(b.graph.dependents.get(from) ?? [])])].filter((d) => d !== to).sort();
    const unguarded = dependents.filter((d) => b.graph.nodes.has(d) && !transitiveDeps(b.graph, d).has(to));
    moves.push({ object, from, to, pruned, guaranteed, dependents, unguarded, message: moveMessage(object, from, to, pruned, guaranteed, dependents, unguarded) });
  }
  return moves;
}

function moveMessage(object: string, from: string, to: string, pruned: boolean, guaranteed: boolean, dependents: string[], unguarded: string[]): string {
  const lost = unguarded.length
    ? ` ${unguarded.join(', ')} ${unguarded.length === 1 ? 'depends' : 'depend'} on ${from} but not on ${to}, so ${unguarded.length === 1 ? 'it' : 'they'} no longer wait${unguarded.length === 1 ? 's' : ''} for ${object} to exist (add dependsOn ${parseKsKey(to).name} where it needs it).`
    : '';
  if (!pruned) return `${object} moves from ${from} to ${to}; ${from} does not prune, so ${to} simply takes it over.${lost}`;
  const when = guaranteed
    ? `${to} depends on ${from} with the same source, so ${from} always reconciles first: it WILL delete ${object}, and ${to} recreates it later`
    : `if ${from} reconciles before ${to}, it deletes ${object} and ${to} recreates it later`;
  // The window: from the old owner's prune until the new owner is next looked at (--requeue-dependency, 30s by
  // default, after the old one is Ready); what depends on the old owner runs meanwhile without the object.
  const window = dependents.length
    ? ` In that window ${object} does not exist for what depends on ${from}: ${dependents.join(', ')}.`
    : '';
  return (
    `${object} moves from ${from} (prune: true) to ${to}: ${when} (a transient outage, until ${to} is reconciled after ` +
    `${from} is Ready: kustomize-controller's --requeue-dependency, 30s by default; a moved Namespace loses ` +
    `everything in it).${window}${lost} Safe procedure: first merge the move with prune: false on ${parseKsKey(from).name} (or label ` +
    `the object kustomize.toolkit.fluxcd.io/prune: disabled), check that its label kustomize.toolkit.fluxcd.io/name ` +
    `now says ${parseKsKey(to).name}, then restore prune: true.`
  );
}

/** No change in the graph (tiers, edges, paths, levels, owners); problems are apart (newErrors). */
export const isEmptyDiff = (d: GraphDiff): boolean =>
  d.tiersAdded.length + d.tiersRemoved.length + d.resourceSetsAdded.length + d.resourceSetsRemoved.length + d.edgesAdded.length + d.edgesRemoved.length + d.pathsChanged.length + d.moves.length +
    d.levelsChanged.length === 0;

/** Errors the newer side adds: `diff --exit-code` fails on them as on a graph change. */
export const newErrors = (d: GraphDiff): number => (d.problemsAdded ?? []).filter((p) => p.severity === 'error').length;

const levelLabel = (l: number | null) => (l === null ? 'cycle' : String(l));
const first = (s: string) => s.split('\n')[0]!;

/** `diff` for people: +/- lines, then the moves with their procedure. */
export function renderDiffText(d: GraphDiff): string {
  const lines = [`--- ${d.from}`, `+++ ${d.to}`];
  for (const k of d.tiersRemoved) lines.push(`- Kustomization ${k}`);
  for (const k of d.tiersAdded) lines.push(`+ Kustomization ${k}`);
  for (const k of d.resourceSetsRemoved) lines.push(`- ${k}`);
  for (const k of d.resourceSetsAdded) lines.push(`+ ${k}`);
  for (const e of d.edgesRemoved) lines.push(`- ${e.from} dependsOn ${e.to}`);
  for (const e of d.edgesAdded) lines.push(`+ ${e.from} dependsOn ${e.to}`);
  for (const p of d.pathsChanged) lines.push(`~ ${p.key} path ${p.from ?? '-'} -> ${p.to ?? '-'}`);
  for (const l of d.levelsChanged) lines.push(`~ ${l.key} level ${levelLabel(l.from)} -> ${levelLabel(l.to)}${l.to !== null && l.from !== null && l.to > l.from ? ' (starts later)' : ''}`);
  for (const m of d.moves) lines.push(`${m.pruned ? '! ' : '~ '}${m.message}`);
  if (isEmptyDiff(d)) lines.push('  (no difference in the graph)');
  for (const p of d.problemsAdded ?? []) lines.push(`+ new ${p.severity} ${p.code}${p.file ? ` ${p.file}${p.line ? `:${p.line}` : ''}` : ''}: ${first(p.message)}`);
  for (const p of d.problemsFixed ?? []) lines.push(`- fixed ${p.severity} ${p.code}${p.object ? ` ${p.object}` : ''}: ${first(p.message)}`);
  return lines.join('\n') + '\n';
}
