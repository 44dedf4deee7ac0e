// What all clusters of one load share while they render: the repository as Flux reads it, the build queue, the
// per-load memo of builds, the static scans that put off leaf tiers, and the render cache.
import type { Dirent } from 'node:fs';
import os from 'node:os';
import type { NamespacedRef } from '../model/ref.js';
import type { Kustomize } from '../repo/find-kustomize.js';
import type { Ignored } from '../repo/generated-kustomization.js';
import { KustomizationFiles } from '../repo/kustomization-file.js';
import type { TextMemo } from '../repo/lazy-yaml.js';
import { BuildCache } from '../cache/build-cache.js';
import { BuildInputHashes } from '../cache/build-input-hashes.js';
import type { RenderCache } from '../cache/render-cache.js';
import { ArtifactStore } from './artifact-store.js';
import type { BuildOutcome } from '../repo/kustomize-output.js';
import { Builder } from './kustomize-batches.js';
import { LikelyFailures } from './likely-failures.js';
import { OriginIndex } from './origin-lines.js';
import { HELM_DEPENDS_ON } from './scan-questions.js';
import { SourceIgnore } from './sourceignore.js';
import { TierFileScan } from './tier-file-scan.js';

/**
 * 'all' renders every tier. 'graph' renders what can change the Kustomization graph: a tier whose files hold no Flux
 * Kustomization is built only when a lookup needs its objects (see tier-file-scan.ts).
 */
export type RenderScope = 'all' | 'graph';

/** One build of a directory with an overlay, as build-path.ts made it. */
export interface PathBuild {
  outcome: BuildOutcome;
  /** Flux's generated kustomization was used (the directory has none); `files` is what it lists. */
  generated: boolean;
  files: string[];
  /** The directory built (absolute). */
  dir: string;
}

export interface RenderContext {
  /** Absolute directory the repository is read from (the work tree, or an exported revision). */
  root: string;
  /** This load's temp directory: overlays `r<n>`, batches, materialized artifacts. */
  work: string;
  builder: Builder;
  origins: OriginIndex;
  /** Every build of this load by path + overlay (build-path.ts), so that none runs twice. */
  builds: Map<string, Promise<PathBuild>>;
  /** The builds whose children were guessed from their files (predicted-children.ts), by request key: once each. */
  guessed: Set<string>;
  likelyFailures: LikelyFailures;
  /** Builds requested (`n`, also the overlays' numbers), and how many of them the render cache could not key. */
  seq: { n: number; uncached: number };
  scope: RenderScope;
  fluxScan: TierFileScan;
  /**
   * Scope 'graph' with LoadOptions.helmOrders: may a tier's files hold a HelmRelease with spec.dependsOn
   * (scan-questions.ts)? Those are built too, and then those that may hold its target. Null: neither is.
   */
  helmScan: TierFileScan | null;
  /** Scans for deferred leaves that may hold a substituteFrom source, by the JSON of the sorted names. */
  sourceScans: Map<string, TierFileScan>;
  artifacts: ArtifactStore;
  /** Kustomization files read once per load, shared by discovery, the failure hint and the scans. */
  kustomizations: KustomizationFiles;
  /** What each build reads (file hashes once per load): the cache's keys, and the source-artifact check. */
  inputs: BuildInputHashes;
  /** The render cache as builds use it, or null (--no-cache, or no cache directory for this user). */
  buildCache: BuildCache | null;
  /** What source-controller leaves out of this repository's artifact. */
  sourceIgnore: SourceIgnore;
  /** `sourceIgnore` by absolute path; false outside the repository (an artifact's own copy). */
  ignored: Ignored;
  /** YAML parsed once per text, across loads when the cache is on. */
  memo: TextMemo;
  /** The repository's directory listings, read once by SourceIgnore.load and shared with discovery. */
  listings: ReadonlyMap<string, Dirent[]>;
  /**
   * tiers.yaml resourceSetInputs: the input sets a ResourceSetInputProvider (`namespace/name`) exports, for those
   * that read an API at run time. Set by the load once tiers.yaml is read.
   */
  resourceSetInputs: Map<string, Record<string, unknown>[]>;
  /** Sources read from a local directory (--local-source, tiers.yaml localSources). Set by the load. */
  localSources: LocalSource[];
}

/**
 * A directory that stands for a source's artifact: one source (`ref`), or every source whose URL is `url` (a
 * GitRepository's or OCIRepository's url, a Bucket's endpoint). Kustomizations reading it render from `dir`.
 */
export interface LocalSource {
  ref: NamespacedRef | null;
  url: string | null;
  /** Absolute directory: the artifact's root, which spec.path is relative to. */
  dir: string;
  /** Where it was given, for messages: `--local-source X=DIR`, or `tiers.yaml:LINE`. */
  from: string;
}

export interface RenderContextOptions {
  /** Absolute directory the repository is read from. */
  root: string;
  work: string;
  kustomize: Kustomize;
  memo: TextMemo;
  /** The render cache, or null; `kustomizeId` keys its entries. */
  renderCache: RenderCache | null;
  kustomizeId: string;
  /** Parallel kustomize processes; default os.availableParallelism(). */
  concurrency?: number;
  scope?: RenderScope;
  /** With scope 'graph': also build the leaf tiers that may hold HelmRelease orders (LoadOptions.helmOrders). */
  helmOrders?: boolean;
  onProgress?: (done: number, total: number) => void;
}

export function createRenderContext(o: RenderContextOptions): RenderContext {
  const { root, work, memo } = o;
  const builder = new Builder({ kustomize: o.kustomize, work, concurrency: Math.max(1, o.concurrency ?? os.availableParallelism()), onProgress: o.onProgress });
  const kustomizations = new KustomizationFiles(memo);
  const listings = new Map<string, Dirent[]>();
  const sourceIgnore = SourceIgnore.load(root, listings);
  const ignored = sourceIgnore.ignoredUnder(root);
  const inputs = new BuildInputHashes(kustomizations);
  return {
    root,
    work,
    builder,
    origins: new OriginIndex(memo),
    builds: new Map(),
    guessed: new Set(),
    likelyFailures: new LikelyFailures(kustomizations),
    seq: { n: 0, uncached: 0 },
    scope: o.scope ?? 'all',
    fluxScan: new TierFileScan(kustomizations, ignored),
    sourceScans: new Map(),
    helmScan: o.helmOrders ? new TierFileScan(kustomizations, ignored, HELM_DEPENDS_ON) : null,
    artifacts: new ArtifactStore(work),
    kustomizations,
    inputs,
    buildCache: o.renderCache ? new BuildCache({ cache: o.renderCache, inputs, kustomizeId: o.kustomizeId, root, work }) : null,
    sourceIgnore,
    ignored,
    memo,
    listings,
    resourceSetInputs: new Map(),
    localSources: [],
  };
}

/**
 * Under scope 'graph', a tier whose files can add neither a Flux node nor a HelmRelease order is a leaf whose build is
 * put off (tier-render.ts), maybe for good.
 */
export function putOffUnderGraph(ctx: RenderContext, dir: string, components: readonly string[] | undefined): boolean {
  return ctx.scope === 'graph' && !ctx.fluxScan.mayApplyKustomizations(dir, components) && !ctx.helmScan?.may(dir, components);
}
