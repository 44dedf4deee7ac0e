/** Where an object came from: a file relative to the repository root, and its line where the build allows it. */
export interface Origin {
  file: string;
  line: number | null;
}

export interface SourceRef {
  kind: string;
  name: string;
  namespace: string;
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
  sourceRef: SourceRef;
  dependsOn: DependsOn[];
  wait: boolean;
  healthChecks: number;
  prune: boolean;
  suspend: boolean;
  timeout: string | null;
  interval: string | null;
  targetNamespace: string | null;
  postBuild: PostBuild | null;
  /** Key of the Kustomization whose build applies this one; null for a cluster's entry objects. */
  parent: string | null;
  origin: Origin;
  raw: Record<string, unknown>;
  /** Set by the loader; absent in models made by hand, which count as built. */
  expansion?: Expansion;
}

/** Any object a Kustomization applies, with the Kustomization that owns it. */
export interface RenderedObject {
  apiVersion: string;
  kind: string;
  name: string;
  namespace: string | null;
  origin: Origin;
  /** Key of the Kustomization that applies it; null for objects of the entry path itself. */
  owner: string | null;
  raw: Record<string, unknown>;
}

/** A source a Kustomization points at that does not live in this repository (another repo, OCI, a bucket). */
export interface ExternalSource {
  ref: SourceRef;
  url: string | null;
  usedBy: string[];
}

/** One cluster, fully loaded: what the graph, lint and plan code consume. Pure data. */
export interface ClusterModel {
  name: string;
  /** The entry path, relative to the repository root. */
  entry: string;
  kustomizations: FluxKustomization[];
  objects: RenderedObject[];
  /** False when the load rendered only the graph (scope 'graph') and left leaf tiers' objects out. */
  objectsComplete: boolean;
  externalSources: ExternalSource[];
  /** The root sync's source (what this repository is called in the cluster), and how the loader learned it. */
  rootSource?: RootSource;
}

export interface RootSource {
  ref: SourceRef;
  url: string | null;
  /**
   * `config`: tiers.yaml; `discovered`: a root sync in the repository names it; `flag`: --source; `self`: the entry's
   * own Kustomization that reconciles it reads it; `assumed`: nothing said, GitRepository flux-system/flux-system.
   */
  how: 'config' | 'discovered' | 'flag' | 'self' | 'assumed';
  /** The file it was learned from, repository-relative, when there is one. */
  foundIn: string | null;
  /** Other sources that are this repository too (two roots syncing one path). */
  also: SourceRef[];
}
