import type { NamespacedRef } from '../model/ref.js';
// A cluster as the loader reads it: the entry path a root sync reconciles, and the root sync's source (what "this
// repository" is called inside the cluster). tiers.yaml, discovery, --path and --source each say some of it.

export interface SourceSpec {
  ref: NamespacedRef;
  /** The source's URL when known: other GitRepositories with the same URL also count as this repository. */
  url: string | null;
}

/** How a cluster's root source was learned: tiers.yaml, discovery, the --source flag, or assumed (nothing said). */
export type SourceHow = 'config' | 'discovered' | 'flag' | 'assumed';

export interface ClusterEntry {
  name: string;
  /** Entry directory, relative to the repository root, '/'-separated, '' for the root itself. */
  entry: string;
  /** The root sync source: Kustomizations reading it render from this repository. */
  source: NamespacedRef;
  /** The source's URL when known: other GitRepositories with the same URL also count as this repository. */
  sourceUrl: string | null;
  /** Other root syncs of the same entry path (a FluxInstance and a plain root): their sources are this repository too. */
  alsoSources: SourceSpec[];
  /** Where the entry was found (relative file), for messages. */
  foundIn: string | null;
  how: SourceHow;
  /**
   * The folder of this repository that the root source's artifact holds (an OCI artifact pushed from a sub-folder,
   * tiers.yaml sourceRoot), with how it was learned; absent when spec.paths are relative to the repository root or
   * the root sync in the entry says where.
   */
  sourceRoot?: { dir: string; why: string; inferred: boolean };
}

/** The root source `flux bootstrap` writes, taken when nothing names another. */
export const DEFAULT_SOURCE: NamespacedRef = { kind: 'GitRepository', name: 'flux-system', namespace: 'flux-system' };

/** The source kinds a Flux Kustomization can read. */
export const FLUX_SOURCE_KINDS = ['GitRepository', 'OCIRepository', 'Bucket', 'ExternalArtifact'] as const;
