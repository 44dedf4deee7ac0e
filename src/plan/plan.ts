import { ancestors, buildGraph, type Graph } from '../graph/graph.js';
import { computeLevels, levelIndex, type Levels } from '../graph/levels.js';
import type { ClusterModel, FluxKustomization, FluxResourceSet, ResourceSetExpansion } from '../model/flux.js';
import type { ResolvedDependency } from '../graph/resourceset-deps.js';
import type { ImplicitDependsOn } from './helm-order.js';
import { refKey, type NamespacedRef } from '../model/ref.js';

/** One Kustomization in a plan; the shape of `plan -o json` (a documented contract: add fields, never rename). */
export interface PlannedKustomization {
  key: string;
  path: string | null;
  dependsOn: string[];
  parent: string | null;
  /** null when the Kustomization sits on or behind a dependsOn cycle. */
  level: number | null;
  file: string;
  /** The source it reads (a GitRepository, an ExternalArtifact, an OCIRepository...); `Kind/namespace/name` in JSON. */
  source: NamespacedRef;
  /** `plan -o json`: tiers it must follow for its HelmReleases' dependsOn, outside its dependsOn closure (helm-order.ts). */
  implicitDependsOn?: ImplicitDependsOn[];
  /** Only for a Kustomization a ResourceSet generates: that ResourceSet's key; `file` and `line` are its. */
  generatedBy?: string;
  line?: number | null;
}

/** One ResourceSet in a plan (`plan -o json` `resourceSets`, present when the cluster has any). */
export interface PlannedResourceSet {
  /** `ResourceSet/namespace/name`, as in `levels`. */
  key: string;
  namespace: string;
  name: string;
  parent: string | null;
  level: number | null;
  file: string;
  line: number | null;
  /** Its spec.dependsOn as written, each with the tier it orders it after (null: see `resolved`). */
  dependsOn: {
    apiVersion: string;
    kind: string;
    namespace: string | null;
    name: string;
    ready: boolean;
    readyExpr: string | null;
    tier: string | null;
    resolved: ResolvedDependency['how'];
  }[];
  wait: boolean;
  /** Whether what it generates is in the graph (`expansion` says why not). */
  expanded: boolean;
  expansion: ResourceSetExpansion;
  inputSets: number | null;
  providers: string[];
  /** What it generates, `Kind/namespace/name`, in the operator's order. */
  generated: string[];
}

export interface ClusterPlan {
  name: string;
  entry: string;
  levels: string[][];
  /** TIER_ORDER: the entry path's own tiers, in the order they converge. */
  tiers: string[];
  kustomizations: PlannedKustomization[];
  /** Present only when the cluster has ResourceSets (flux-operator). */
  resourceSets?: PlannedResourceSet[];
}

/**
 * The root sync: the Kustomization that reconciles the entry path (flux-system/flux-system as `flux bootstrap` writes
 * it) and the source it reads, which every tier of this repository is judged against. Defined once, here, from the
 * model; nothing else looks for it.
 */
export interface RootSync {
  /** The root Kustomization's key, when the entry's own build contains it (it applies itself); null otherwise. */
  key: string | null;
  /** The root Kustomization itself, when `key` is set. */
  ks: NamespacedRef | null;
  /** Its source: the root Kustomization's sourceRef, else the loader's inference for the entry. */
  source: NamespacedRef;
}

export interface PlanContext {
  cluster: ClusterModel;
  graph: Graph;
  levels: Levels;
  plan: ClusterPlan;
  rootSync: RootSync;
}

/** What Flux bootstrap names the root sync's source when nothing says otherwise. */
const DEFAULT_ROOT_SOURCE: NamespacedRef = { kind: 'GitRepository', name: 'flux-system', namespace: 'flux-system' };

/** Derives a cluster's plan from its model. Pure: the same model always gives the same plan. */
export function planCluster(cluster: ClusterModel, exclude: ReadonlySet<string> = new Set()): PlanContext {
  const graph = buildGraph(cluster, exclude);
  const levels = computeLevels(graph);
  const index = levelIndex(levels);
  const order = [...levels.levels.flat(), ...levels.blocked];
  const position = new Map(order.map((k, i) => [k, i]));
  const kustomizations = order.filter((key) => graph.nodes.has(key)).map((key) => describe(graph.nodes.get(key)!, index));
  const tiers = order.filter((key) => graph.nodes.has(key) && isTopLevel(graph, graph.nodes.get(key)!, cluster.entry));
  kustomizations.sort((a, b) => position.get(a.key)! - position.get(b.key)!);
  const resourceSets = order.filter((key) => graph.resourceSets.has(key)).map((key) => describeResourceSet(graph.resourceSets.get(key)!, graph.resourceSetDeps.get(key) ?? [], index));
  const root = [...graph.nodes.values()].find((k) => isRootSync(k, cluster.entry)) ?? null;
  return {
    cluster,
    graph,
    levels,
    plan: { name: cluster.name, entry: cluster.entry, levels: levels.levels, tiers, kustomizations, ...(resourceSets.length > 0 ? { resourceSets } : {}) },
    rootSync: { key: root?.key ?? null, ks: root ? { kind: 'Kustomization', namespace: root.namespace, name: root.name } : null, source: root?.sourceRef ?? cluster.rootSource?.ref ?? DEFAULT_ROOT_SOURCE },
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
    source: ks.sourceRef,
    ...(ks.generatedBy ? { generatedBy: ks.generatedBy, line: ks.origin.line } : {}),
  };
}

function describeResourceSet(rs: FluxResourceSet, deps: ResolvedDependency[], index: Map<string, number>): PlannedResourceSet {
  return {
    key: rs.key,
    namespace: rs.namespace,
    name: rs.name,
    parent: rs.parent,
    level: index.get(rs.key) ?? null,
    file: rs.origin.file,
    line: rs.origin.line,
    dependsOn: deps.map((r) => ({
      apiVersion: r.dep.apiVersion,
      kind: r.dep.kind,
      namespace: r.dep.namespace,
      name: r.dep.name,
      ready: r.dep.ready,
      readyExpr: r.dep.readyExpr,
      tier: r.tier,
      resolved: r.how,
    })),
    wait: rs.wait,
    expanded: rs.expansion === 'built',
    expansion: rs.expansion,
    inputSets: rs.inputSets,
    providers: rs.providers,
    generated: rs.generated,
  };
}

/** A plan as `plan -o json` and `-o yaml` print it: each source as its refKey. */
export const planDocument = <P extends ClusterPlan>(plan: P): Omit<P, 'kustomizations'> & { kustomizations: (Omit<PlannedKustomization, 'source'> & { source: string })[] } => ({
  ...plan,
  kustomizations: plan.kustomizations.map((k) => ({ ...k, source: refKey(k.source) })),
});

/**
 * A tier of TIER_ORDER is a Kustomization the entry path applies itself: no parent, or whose parent is the root
 * sync that reconciles the entry path. The root sync (the Kustomization whose path is the entry) is not a tier:
 * it exists before any tier can run.
 */
function isTopLevel(g: Graph, ks: FluxKustomization, entry: string): boolean {
  if (isRootSync(ks, entry)) return false;
  // A ResourceSet generates its Kustomizations as kustomize generates a folder's: what the entry's ResourceSets
  // generate are the entry's tiers.
  const chain = ancestors(g, ks.key).filter((k) => !g.resourceSets.has(k));
  return chain.length === 0 || (chain.length === 1 && isRootSync(g.nodes.get(chain[0]!)!, entry));
}

const normalise = (p: string | null): string => (p ?? '').replace(/^\.\//, '').replace(/\/+$/, '');

/** The root sync reconciles the entry path itself (flux-system/flux-system -> ./clusters/dev). */
export const isRootSync = (ks: FluxKustomization, entry: string): boolean =>
  ks.repoPath !== null && normalise(ks.repoPath) === normalise(entry);
