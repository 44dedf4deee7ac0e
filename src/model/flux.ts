import { parseKsKey, type NamespacedRef } from './ref.js';

/** Where an object came from: a file relative to the repository root, and its line where the build allows it. */
export interface Origin {
  file: string;
  line: number | null;
}

export interface DependsOn {
  /** `namespace/name`; the namespace defaults to the dependent's, as kustomize-controller does. */
  key: string;
  /** Line of this entry in the dependent's file, where known. */
  line: number | null;
}

export interface PostBuild {
  substitute: Record<string, string>;
  substituteFrom: { kind: 'ConfigMap' | 'Secret'; name: string; optional: boolean }[];
}

/**
 * Whether the load read what a Kustomization applies. `built`: its path was built from this repository; `deferred`:
 * a leaf tier of a graph-only load (plan, graph), not built because its files hold no Flux Kustomization. The other
 * values are the problem code that says why it was not: its source is not this repository, its path does not exist,
 * or its build failed.
 */
export type Expansion = 'built' | 'deferred' | 'external-source' | 'path-missing' | 'build-failed';

/** Expanded: what the Kustomization applies is in the graph (built, or a leaf known to hold no Kustomization). */
export const isExpanded = (k: { expansion?: Expansion }): boolean => k.expansion === undefined || k.expansion === 'built' || k.expansion === 'deferred';

/** A Flux Kustomization as the cluster would receive it: after its parent's build, overlay and substitution. */
export interface FluxKustomization {
  key: string;
  namespace: string;
  name: string;
  /** spec.path as built (after substitution), relative to the source's root. */
  path: string | null;
  /** The directory it renders, relative to the repository root; null when its source is not this repository. */
  repoPath: string | null;
  sourceRef: NamespacedRef;
  dependsOn: DependsOn[];
  wait: boolean;
  healthChecks: number;
  prune: boolean;
  suspend: boolean;
  timeout: string | null;
  interval: string | null;
  targetNamespace: string | null;
  postBuild: PostBuild | null;
  /** Key of the Kustomization (or ResourceSet) that applies this one; null for a cluster's entry objects. */
  parent: string | null;
  origin: Origin;
  raw: Record<string, unknown>;
  /** Set by the loader; absent in models made by hand, which count as built. */
  expansion?: Expansion;
  /** The ResourceSet whose templates generate this Kustomization (its origin is the ResourceSet's file:line). */
  generatedBy?: string;
}

/** Any object a Kustomization applies, with the Kustomization that owns it. */
export interface RenderedObject {
  apiVersion: string;
  kind: string;
  name: string;
  namespace: string | null;
  origin: Origin;
  /** Key of the Kustomization (or ResourceSet) that applies it; null for objects of the entry path itself. */
  owner: string | null;
  raw: Record<string, unknown>;
  /**
   * False when the object's YAML does not contain `text` anywhere, so no field of it can hold it: a test that needs
   * one annotation need not parse the object. Absent when the object was not read from YAML text.
   */
  mentions?(text: string): boolean;
}

/** A source a Kustomization points at that does not live in this repository (another repo, OCI, a bucket). */
export interface ExternalSource {
  ref: NamespacedRef;
  url: string | null;
  usedBy: string[];
}

/** One entry of a ResourceSet's spec.dependsOn, as written (flux-operator does not default its namespace). */
export interface ResourceSetDependsOn {
  apiVersion: string;
  kind: string;
  name: string;
  namespace: string | null;
  /** `ready: true`: the object must be Ready (kstatus Current, or readyExpr), not only exist. */
  ready: boolean;
  readyExpr: string | null;
  /** Line of this entry in the ResourceSet's file, where known. */
  line: number | null;
}

/**
 * Whether a ResourceSet's objects are in the model: `built`, or why not: a template that does not render
 * (`build-failed`), or an input provider whose inputs cannot be known offline (`inputs-unknown`).
 */
export type ResourceSetExpansion = 'built' | 'build-failed' | 'inputs-unknown';

/**
 * A flux-operator ResourceSet (fluxcd.controlplane.io/v1): a node of the graph like a Kustomization. It is applied by
 * a tier (its parent) and applies what its templates generate (Kustomizations among them, whose parent it is).
 */
export interface FluxResourceSet {
  /** `ResourceSet/namespace/name`: distinct from a Kustomization's `namespace/name`. */
  key: string;
  namespace: string;
  name: string;
  /** Key of the Kustomization or ResourceSet that applies it; null for a cluster's entry objects. */
  parent: string | null;
  origin: Origin;
  dependsOn: ResourceSetDependsOn[];
  /** spec.wait: Ready only once every object it applied is. */
  wait: boolean;
  /** How many input sets it rendered with (null when not expanded). */
  inputSets: number | null;
  /** Its ResourceSetInputProviders, `namespace/name`, in the operator's order. */
  providers: string[];
  /** What it generates, `Kind/namespace/name`, in the operator's apply order; empty when not expanded. */
  generated: string[];
  expansion: ResourceSetExpansion;
  raw: Record<string, unknown>;
}

/** `ResourceSet/namespace/name`. */
export const resourceSetKey = (namespace: string, name: string): string => `ResourceSet/${namespace}/${name}`;

/** Whether a graph key is a ResourceSet's (a Kustomization's key has one '/'). */
export const isResourceSetKey = (key: string): boolean => key.startsWith('ResourceSet/');

/** A graph node's namespace and name: a Kustomization's `namespace/name` (ksKey) or a ResourceSet's key. */
export const nodeKeyParts = (key: string): { namespace: string; name: string } => parseKsKey(isResourceSetKey(key) ? key.slice('ResourceSet/'.length) : key);

/** One cluster, fully loaded: what the graph, lint and plan code consume. Pure data. */
export interface ClusterModel {
  name: string;
  /** The entry path, relative to the repository root. */
  entry: string;
  kustomizations: FluxKustomization[];
  /** flux-operator ResourceSets the cluster applies (absent in models made by hand: none). */
  resourceSets?: FluxResourceSet[];
  objects: RenderedObject[];
  /** False when the load rendered only the graph (scope 'graph') and left leaf tiers' objects out. */
  objectsComplete: boolean;
  externalSources: ExternalSource[];
  /** The root sync's source (what this repository is called in the cluster), and how the loader learned it. */
  rootSource?: RootSource;
}

export interface RootSource {
  ref: NamespacedRef;
  url: string | null;
  /**
   * `config`: tiers.yaml; `discovered`: a root sync in the repository names it; `flag`: --source; `self`: the entry's
   * own Kustomization that reconciles it reads it; `assumed`: nothing said, GitRepository flux-system/flux-system.
   */
  how: 'config' | 'discovered' | 'flag' | 'self' | 'assumed';
  /** The file it was learned from, repository-relative, when there is one. */
  foundIn: string | null;
  /** Other sources that are this repository too (two roots syncing one path). */
  also: NamespacedRef[];
  /**
   * The folder of this repository the root source's artifact holds, which spec.paths are relative to ('' = the
   * repository root), when it is not the root: `why` says how it was learned (stderr says it when inferred).
   */
  sourceRoot?: { dir: string; why: string; inferred: boolean };
}
