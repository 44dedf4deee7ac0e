// What the runner is handed. The CLI reads everything (kubeconfig, repository, bootstrap manifests, decrypted
// secrets, the CRD fallback) before a run starts; the runner talks only to the cluster through `client`.

import type { ClusterClient, K8sObject } from '../cluster/client.js';
import type { GateSetting } from '../model/feature-gates.js';
import type { ContextCheck } from '../cluster/guard.js';
import type { Origin } from '../model/flux.js';
import type { Problem } from '../model/problem.js';
import type { RuntimeCrdDecl } from './runtime-crd-wait.js';
import type { PlanContext } from '../plan/plan.js';
import type { InstanceManifest } from './flux-instance.js';
import type { FluxCrds } from './preflight.js';

/** A CRD the fallback in tiers.yaml provides, found by reading the configured manifests. */
export interface FallbackCrd {
  group: string;
  kind: string;
  name: string;
  file: string;
}

/** The install step's input: the Flux install manifests from the repository (gotk-components.yaml). */
export interface InstallManifests {
  file: string;
  objects: K8sObject[];
}

export interface BootstrapInputs {
  /** null: the controllers already run (`install: already-running`, or no install configured). With a FluxInstance: flux-operator's install manifests. */
  install: InstallManifests | null;
  /** The FluxInstance flux-operator installs Flux and the root sync from (`install: {operator, instance}`), or null. */
  instance?: InstanceManifest | null;
  /** Declared Secrets, decrypted in memory; never printed, never written to disk. */
  secrets: K8sObject[];
  /** The root sync objects (gotk-sync.yaml): the source and the root Kustomization. */
  sync: K8sObject[];
  /** Where the sync objects came from (for messages). */
  syncDir: string;
}

export interface Timeouts {
  defaultMs: number;
  /** Per Kustomization key (`namespace/name`), from tiers.yaml. */
  tiers: Readonly<Record<string, number>>;
  /** --timeout: the whole run's deadline (Infinity: none). */
  overallMs: number;
  /** How long the API server has to answer preflight at all (STANDUP_CONNECT_TIMEOUT); absent: CONNECT_TIMEOUT_MS. */
  connectMs?: number;
}

export interface CrdKnowledge {
  /** Kinds an operator creates at runtime: tiers.yaml runtimeCrds, then those inferred from git as check infers them. */
  runtimeCrds: readonly RuntimeCrdDecl[];
  /** CRD groups some object in git defines (partial when only the graph was rendered). */
  groupsInGit: ReadonlySet<string>;
  /** tiers.yaml externalCrds: installed outside Flux. */
  externalCrds: readonly string[];
}

/** One cluster, planned, with a client pointed at it; everything a run needs. */
export interface RunTarget {
  /** The cluster's name in tiers.yaml (or the discovered one). */
  name: string;
  ctx: PlanContext;
  client: ClusterClient;
  /** Which of Flux's CRDs the cluster has, asked while the repository loaded (preflight uses it); absent: not asked. */
  fluxCrdsProbe?: Promise<FluxCrds | undefined>;
  /** The context guard's input (pure data); `pinned` false when neither tiers.yaml nor --context names a context. */
  guard: ContextCheck & { pinned: boolean };
  timeouts: Timeouts;
  resettable: boolean;
  /** Every static problem of the repository (load and lint); the runner refuses those that decide convergence. */
  problems: readonly Problem[];
  fallback: { files: readonly string[]; objects: readonly K8sObject[]; crds: readonly FallbackCrd[] };
  crdKnowledge: CrdKnowledge;
  /** Read for `up` (and for `resume` when the install comes from the repository); null otherwise. */
  bootstrap: BootstrapInputs | null;
  /** Whether tiers.yaml installs Flux from the repository (`install: {path}`), so resume waits for its Deployments. */
  installsFlux: boolean;
  /**
   * When tiers.yaml installs nothing: the repository's own bootstrap steps that install flux-operator or the
   * flux-instance chart (`file:line (helmfile release flux-operator, chart …)`), for the message when Flux is missing.
   */
  fluxChartInstalls?: readonly string[];
  /** Where an image is written in the repository, from the origin of the object that runs it (null: cannot tell). */
  locateImage?: ImageLocator;
  /** The AdditiveCELDependencyCheck gate as the repository sets it on each controller (null: it does not). */
  additiveCel?: { kustomize: GateSetting | null; helm: GateSetting | null };
}

/** The line of `image` (run by `container`) in the object whose metadata.name is at `at`. */
export type ImageLocator = (at: Origin, container: string | undefined, image: string) => Origin | null;

/** A tier's timeout: tiers.yaml's for it, else the default. */
export const timeoutFor = (t: Timeouts, key: string): number => t.tiers[key] ?? t.defaultMs;
