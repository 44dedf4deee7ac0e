import { ancestors, buildGraph, type Graph } from '../graph/graph.js';
import { computeLevels, levelIndex, type Levels } from '../graph/levels.js';
import type { ClusterModel, FluxKustomization, SourceRef } from '../model/flux.js';
import type { ImplicitDependsOn } from './helm-order.js';

/** One Kustomization in a plan; the shape of `plan -o json` (a documented contract: add fields, never rename). */
export interface PlannedKustomization {
  key: string;
  path: string | null;
  dependsOn: string[];
  parent: string | null;
  /** null when the Kustomization sits on or behind a dependsOn cycle. */
  level: number | null;
  file: string;
  /** The source it reads, `Kind/namespace/name` (a GitRepository, an ExternalArtifact, an OCIRepository...). */
  source: string;
  /** `plan -o json`: tiers it must follow for its HelmReleases' dependsOn, outside its dependsOn closure (helm-order.ts). */
  implicitDependsOn?: ImplicitDependsOn[];
}

export interface ClusterPlan {
  name: string;
  entry: string;
  levels: string[][];
  /** TIER_ORDER: the entry path's own tiers, in the order they converge. */
  tiers: string[];
  kustomizations: PlannedKustomization[];
}

/**
 * The root sync: the Kustomization that reconciles the entry path (flux-system/flux-system as `flux bootstrap` writes
 * it) and the source it reads, which every tier of this repository is judged against. Defined once, here, from the
 * model; nothing else looks for it.
 */
export interface RootSync {
  /** The root Kustomization's key, when the entry's own build contains it (it applies itself); null otherwise. */
  key: string | null;
  /** Its source: the root Kustomization's sourceRef, else the loader's inference for the entry. */
  source: SourceRef;
}

export interface PlanContext {
  cluster: ClusterModel;
  graph: Graph;
  levels: Levels;
  plan: ClusterPlan;
  rootSync: RootSync;
}

/** What Flux bootstrap names the root sync's source when nothing says otherwise. */
const DEFAULT_ROOT_SOURCE: SourceRef = { kind: 'GitRepository', name: 'flux-system', namespace: 'flux-system' };

/** Derives a cluster's plan from its model. Pure: the same model always gives the same plan. */
export function planCluster(cluster: ClusterModel, exclude: ReadonlySet<string> = new Set()): PlanContext {
  const graph = buildGraph(cluster, exclude);
  const levels = computeLevels(graph);
  const index = levelIndex(levels);
  const order = [...levels.levels.flat(), ...levels.blocked];
  const position = new Map(order.map((k, i) => [k, i]));
  const kustomizations = order.map((key) => describe(graph.nodes.get(key)!, index));
  const tiers = order.filter((key) => isTopLevel(graph, graph.nodes.get(key)!, cluster.entry));
  kustomizations.sort((a, b) => position.get(a.key)! - position.get(b.key)!);
  const root = [...graph.nodes.values()].find((k) => isRootSync(k, cluster.entry)) ?? null;
  return {
    cluster,
    graph,
    levels,
    plan: { name: cluster.name, entry: cluster.entry, levels: levels.levels, tiers, kustomizations },
    rootSync: { key: root?.key ?? null, source: root?.sourceRef ?? cluster.rootSource?.ref ?? DEFAULT_ROOT_SOURCE },
  };
}

function describe(ks: FluxKustomization, index: Map<string, number>): PlannedKustomization {
  return {
    key: ks.key,
    path: ks.path,
    dependsOn: ks.dependsOn.map((d) => d.key),
    parent: ks.parent,
    level: index.get(ks.key) ?? null,
    file: ks.origin.file,
    source: `${ks.sourceRef.kind}/${ks.sourceRef.namespace}/${ks.sourceRef.name}`,
  };
}

/**
 * A tier of TIER_ORDER is a Kustomization the entry path applies itself: no parent, or whose parent is the root
 * sync that reconciles the entry path. The root sync (the Kustomization whose path is the entry) is not a tier:
 * it exists before any tier can run.
 */
function isTopLevel(g: Graph, ks: FluxKustomization, entry: string): boolean {
  if (isRootSync(ks, entry)) return false;
  const chain = ancestors(g, ks.key);
  return chain.length === 0 || (chain.length === 1 && isRootSync(g.nodes.get(chain[0]!)!, entry));
}

const normalise = (p: string | null): string => (p ?? '').replace(/^\.\//, '').replace(/\/+$/, '');

/** The root sync reconciles the entry path itself (flux-system/flux-system -> ./clusters/dev). */
export const isRootSync = (ks: FluxKustomization, entry: string): boolean =>
  ks.repoPath !== null && normalise(ks.repoPath) === normalise(entry);
