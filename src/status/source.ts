// Readiness of a Flux source (GitRepository, OCIRepository, Bucket). Pure.

import { findCondition, type LiveSource } from './conditions.js';

export interface SourceReadiness {
  state: 'ready' | 'progressing' | 'failed' | 'suspended' | 'not-found';
  reason: string;
  message: string;
  /** status.artifact.revision: what Kustomizations reading this source apply (`main@sha1:<hex>`). */
  revision: string | null;
  /**
   * KC needs only an artifact, not a Ready source (FLUX.md §8): a failing source with an old artifact still feeds
   * Kustomizations. True when an artifact exists.
   */
  hasArtifact: boolean;
}

/**
 * GitRepository readiness: ready = Ready=True at the current generation with an artifact. Ready=False is `failed`
 * with source-controller's message (an artifact from an earlier success may still feed Kustomizations: hasArtifact).
 */
export function sourceReadiness(src: LiveSource | undefined | null): SourceReadiness {
  if (!src) return { state: 'not-found', reason: 'NotFound', message: 'source not found', revision: null, hasArtifact: false };
  const revision = src.status?.artifact?.revision ?? null;
  const hasArtifact = revision !== null;
  const ready = findCondition(src.status?.conditions, 'Ready');
  const reconciling = findCondition(src.status?.conditions, 'Reconciling');
  const message = (ready?.message ?? '').trim();
  if (src.spec?.suspend) return { state: 'suspended', reason: 'Suspended', message: 'suspended', revision, hasArtifact };
  if (!ready) return { state: 'progressing', reason: 'NotReconciled', message: 'waiting to be reconciled', revision, hasArtifact };
  const gen = src.metadata.generation;
  if (ready.status === 'True') {
    if (gen !== undefined && src.status?.observedGeneration !== gen) {
      return { state: 'progressing', reason: 'StaleGeneration', message: `generation ${gen} not reconciled yet`, revision, hasArtifact };
    }
    return { state: hasArtifact ? 'ready' : 'progressing', reason: ready.reason ?? 'Succeeded', message, revision, hasArtifact };
  }
  // source-controller sets Ready=Unknown while it works; Ready=False means the last attempt failed (it keeps
  // Reconciling=True/ProgressingWithRetry after a failure, which kstatus would read as still in progress).
  if (ready.status === 'False') {
    return { state: 'failed', reason: ready.reason ?? 'Unknown', message, revision, hasArtifact };
  }
  return { state: 'progressing', reason: ready.reason ?? 'Progressing', message: (reconciling?.message ?? message).trim(), revision, hasArtifact };
}
