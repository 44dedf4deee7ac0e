// The cluster client's contract: pure types, no I/O. src/cluster/node-client.ts implements it over
// @kubernetes/client-node; unit tests substitute the one fake in test/fakes.

import type { Reachability } from './reachability.js';

export type { Reachability } from './reachability.js';

export type { K8sMeta, K8sObject } from '../model/k8s.js';
import type { K8sObject } from '../model/k8s.js';
import type { ApiRef } from '../model/ref.js';

/** A kind to list or watch (not one object: see ApiRef for that); `namespace` omitted = all namespaces. */
export interface KindRef {
  apiVersion: string;
  kind: string;
  namespace?: string;
}

export type ApplyAction = 'created' | 'configured' | 'unchanged';

export interface ApplyOptions {
  /** The SSA field manager; standup uses `standup`. */
  fieldManager: string;
  /** Take over fields owned by other managers (ForceOwnership), as kustomize-controller does. */
  force: boolean;
  /** Server-side dry-run only: report what would happen, write nothing. */
  dryRun?: boolean;
  /** How long to wait for applied CRDs to become Established (default 60 s, like Flux). */
  crdTimeoutMs?: number;
}

/** One object's outcome, in apply order. */
export interface ApplyResult {
  /** `Kind/namespace/name`, or `Kind/name` when cluster-scoped. */
  id: string;
  ref: ApiRef;
  action: ApplyAction;
  /** The live object after the apply (or the dry-run result); undefined only when a dry-run could not be evaluated. */
  object?: K8sObject;
}

export interface ListOptions {
  labelSelector?: string;
  fieldSelector?: string;
}

export type PropagationPolicy = 'Background' | 'Foreground' | 'Orphan';

export interface DeleteOptions {
  propagationPolicy?: PropagationPolicy;
  dryRun?: boolean;
}

export interface ObserveOptions {
  /** Server-side watch timeout; the watch is resumed from the last resourceVersion when it ends. Default 300. */
  timeoutSeconds?: number;
  /** Poll with a LIST every `pollMs` instead of watching. */
  pollMs?: number;
  /** Only the objects this label selector picks (`k=v,k2=v2`). */
  labelSelector?: string;
}

/** API traffic seen by this client, for benchmarks (requests per minute while waiting). */
export interface RequestStats {
  /** Plain request/response calls (GET, LIST, PATCH, DELETE, discovery). */
  requests: number;
  /** Watch connections opened. */
  watches: number;
  /** LISTs redone because a watch was answered 410 Gone (its resourceVersion too old for the server). */
  relists: number;
  /** When counting started (ms since epoch). */
  since: number;
}

/**
 * Everything standup needs from a cluster. Every method throws a ClusterError subclass (src/cluster/errors.ts),
 * never a raw client-node error.
 */
export interface ClusterClient {
  /** The kube context in use and its API server URL (for the context guard). */
  readonly context: string;
  readonly server: string;
  /** GET /version: proves the API server is reachable (preflight, liveness probes); `timeoutMs` overrides the default. */
  serverVersion(o?: { timeoutMs?: number }): Promise<{ gitVersion: string; major?: string; minor?: string }>;
  /** The object, or a NotFoundError. */
  get(ref: ApiRef): Promise<K8sObject>;
  /** The object, or undefined when it does not exist (a missing kind is still a NoKindError). */
  find(ref: ApiRef): Promise<K8sObject | undefined>;
  list(kind: KindRef, o?: ListOptions): Promise<{ items: K8sObject[]; resourceVersion: string }>;
  /** JSON merge patch (annotations, spec.suspend); `fieldManager` names the writer in managedFields. */
  patchMerge(ref: ApiRef, patch: Record<string, unknown>, o?: { dryRun?: boolean; fieldManager?: string }): Promise<K8sObject>;
  /** Deletes; resolves false when the object was already gone. */
  delete(ref: ApiRef, o?: DeleteOptions): Promise<boolean>;
  /**
   * Server-side apply in Flux's stages (CRDs and Namespaces first, CRDs waited to Established, then the rest).
   * Each object is dry-run first and compared with the live one; an unchanged object is not written.
   * On failure throws ApplyError carrying the results of the objects already applied.
   */
  apply(objects: readonly K8sObject[], o: ApplyOptions): Promise<ApplyResult[]>;
  /**
   * Waits until the object is gone (finalizers done), or throws a ClusterTimeoutError naming its finalizers; an
   * aborted signal ends it at once with AbortedError.
   */
  waitDeleted(ref: ApiRef, o?: { timeoutMs?: number; signal?: AbortSignal; pollMs?: number }): Promise<void>;
  /** Waits until every named CRD has Established=True, or throws a ClusterTimeoutError naming the laggards. */
  waitEstablished(crdNames: readonly string[], o?: { timeoutMs?: number; signal?: AbortSignal; pollMs?: number }): Promise<void>;
  /**
   * A list-watch of one kind that survives: relists on 410 Gone, resumes after the server's watch timeout,
   * reconnects with backoff when the API server goes away. Yields a full snapshot keyed `namespace/name`
   * after the initial list and after each change. Ends when `signal` aborts.
   */
  observe(kind: KindRef, signal: AbortSignal, o?: ObserveOptions): AsyncIterable<Map<string, K8sObject>>;
  stats(): RequestStats;
  /** Whether the API server answered the last request or watch, and since when. */
  reachability(): Reachability;
  /** Called on every change of reachability (the server went away, or came back); returns the unsubscribe. */
  onReachability(fn: (r: Reachability) => void): () => void;
  /**
   * The command is done with the cluster: requests still in flight are abandoned (one asked ahead, say preflight's
   * while the repository loaded, for a run the static checks refused) and idle connections closed, so nothing keeps
   * the process from ending. Optional: fakes need none.
   */
  close?(): void;
}

/** API calls per minute since `stats.since` (plain requests plus watch connections opened). */
export const requestsPerMinute = (s: RequestStats, now: number = Date.now()): number =>
  ((s.requests + s.watches) * 60_000) / Math.max(1, now - s.since);

/** The reference of an object read from (or sent to) the API. */
export const apiRefOf = (o: K8sObject): ApiRef => ({
  apiVersion: o.apiVersion,
  kind: o.kind,
  name: o.metadata.name,
  namespace: o.metadata.namespace ?? null,
});

export const FLUX_KUSTOMIZATION = { apiVersion: 'kustomize.toolkit.fluxcd.io/v1', kind: 'Kustomization' } as const;
export const FLUX_SOURCE_API = 'source.toolkit.fluxcd.io/v1';
export const FLUX_HELM_RELEASE = { apiVersion: 'helm.toolkit.fluxcd.io/v2', kind: 'HelmRelease' } as const;
/** The finalizer kustomize- and helm-controller add on their first reconcile (KustomizationFinalizer, HelmReleaseFinalizer). */
export const FLUX_FINALIZER = 'finalizers.fluxcd.io';
