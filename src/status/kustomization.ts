// A Flux Kustomization's readiness with kustomize-controller's exact meaning (FLUX.md §1, §2, §9). Pure: it reads the
// object it is given and never fetches.

import { findCondition, type Condition, type LiveKustomization } from './conditions.js';
import { diagnoseMessage, parseDependency, type Diagnosis } from './diagnose.js';
import type { CelEngine } from './cel.js';
import { describeExpr, judgeDependency, type DependencyVerdict } from './ready-expr.js';
import { refKey } from '../model/ref.js';

export type ReadinessState = 'ready' | 'progressing' | 'waiting' | 'failed' | 'suspended' | 'not-found' | 'stale';

export interface Readiness {
  state: ReadinessState;
  /** Flux's reason (ReconciliationSucceeded, DependencyNotReady, …) or standup's own (NotFound, Suspended, StaleGeneration, StaleRevision, NotReconciled). */
  reason: string;
  /** Flux's Ready message (trimmed), or standup's explanation. */
  message: string;
  /** status.lastAppliedRevision, or null. */
  revision: string | null;
  /** For `waiting`: the dependency (`namespace/name`) or source (`Kind/namespace/name`) waited on. */
  waitingFor?: string;
  /** For `failed` (and health-check progress): the structured diagnosis when the message allows one. */
  diagnosis?: Diagnosis;
  /** For `waiting` on a dependency's readyExpr: the expression and what it gives now (null: not evaluated, and why). */
  readyExpr?: NonNullable<DependencyVerdict['expr']>;
  /** After `readyExpr`: what the AdditiveCELDependencyCheck gate adds (`; with AdditiveCELDependencyCheck on, ...`). */
  readyExprNote?: string;
  /**
   * A state KC passes through within one status update (Ready=True written a moment before observedGeneration):
   * true, so a live view does not flash a line that is stale before it is read.
   */
  transient?: boolean;
}

export interface ReadinessOptions {
  /**
   * The current artifact revision of the source this Kustomization reads. When given, Ready counts only at this
   * revision (the same gate KC applies to a dependency sharing the source); Ready at an older one is `stale`.
   */
  sourceRevision?: string;
  /** The dependsOn keys (`namespace/name`), used when a DependencyNotReady message names none. */
  dependencyKeys?: readonly string[];
  /**
   * To say why a dependency is "not ready according to readyExpr": the live dependency by key and the CEL engine
   * (null: not loaded, and the expression is named without its result).
   */
  readyExpr?: {
    dependency: (key: string) => LiveKustomization | undefined;
    cel: CelEngine | null;
    /** kustomize-controller's AdditiveCELDependencyCheck as standup read it (default off): a true readyExpr then still needs Ready. */
    additive?: boolean;
  };
}

/**
 * Ready=False reasons that will not heal by waiting at the same revision and spec. Stalled=True (terminal) is checked
 * separately. Not here: DependencyNotReady (waiting), ArtifactFailed (the source is not there yet), PruneFailed and
 * HealthCheckCanceled (retried), and ReconciliationFailed (depends on its message; see reconciliationFailed()).
 */
const TERMINAL = new Set([
  'BuildFailed',
  'HealthCheckFailed',
  'InvalidCELExpression',
  'AccessDenied',
  'FeatureGateDisabled',
  'DirectoryCreationFailed',
]);

/** Ready=False reasons that KC retries and that a cold start routinely passes through. */
const RETRIED = new Set(['PruneFailed', 'HealthCheckCanceled', 'ProgressingWithRetry', 'Progressing']);

// API errors that pass once the cluster settles: a webhook whose Service has no endpoints yet during a cold start,
// an API server restarting, throttling. Flux prints them as ReconciliationFailed like real rejections.
const TRANSIENT =
  /failed calling webhook|no endpoints available|connection refused|connection reset|i\/o timeout|context deadline exceeded|TLS handshake timeout|the server is currently unable to handle the request|ServiceUnavailable|\(InternalError\)|etcdserver: |too many requests|the object has been modified|Operation cannot be fulfilled/i;

const trim = (s: string | undefined): string => (s ?? '').trim();

/**
 * Computes a Kustomization's readiness:
 * - `ready`: generation == status.observedGeneration, Ready=True, and lastAppliedRevision == sourceRevision when given;
 * - `stale`: Ready=True but for an older spec generation's source revision (the next reconcile has not happened);
 * - `suspended`: spec.suspend (its status is frozen);
 * - `waiting`: DependencyNotReady (the dependency parsed from Flux's message), or ArtifactFailed while the source
 *   has no artifact yet;
 * - `failed`: Ready=False for a reason that will not heal at this revision (Stalled, BuildFailed, a dry-run rejection such
 *   as the missing-CRD deadlock, HealthCheckFailed, …), with Flux's message and a diagnosis;
 * - `progressing`: Ready=Unknown (the flicker of every reconcile), no Ready yet, a new generation not yet observed, or
 *   a transient failure KC retries;
 * - `not-found`: undefined input.
 */
export function kustomizationReadiness(ks: LiveKustomization | undefined | null, o: ReadinessOptions = {}): Readiness {
  if (!ks) return { state: 'not-found', reason: 'NotFound', message: 'Kustomization not found', revision: null };
  const revision = ks.status?.lastAppliedRevision || null;
  const ready = findCondition(ks.status?.conditions, 'Ready');
  const stalled = findCondition(ks.status?.conditions, 'Stalled');
  const generation = ks.metadata.generation;
  const observed = ks.status?.observedGeneration;

  if (ks.spec?.suspend) {
    return { state: 'suspended', reason: 'Suspended', message: `suspended${ready?.message ? `; last: ${trim(ready.message)}` : ''}`, revision };
  }
  if (ks.metadata.deletionTimestamp) {
    return { state: 'progressing', reason: 'Terminating', message: 'being deleted', revision };
  }
  if (!ready) {
    // flux get prints `waiting to be reconciled` for a Kustomization with no Ready condition yet.
    return { state: 'progressing', reason: 'NotReconciled', message: 'waiting to be reconciled', revision };
  }
  // The generation Ready speaks for: the condition's own observedGeneration (KC sets it), else status.observedGeneration.
  // status.observedGeneration advances only on success or a terminal error, so a first attempt still failing
  // transiently has observedGeneration -1 while its Ready condition is current.
  const condGen = ready.observedGeneration ?? observed;
  const message = trim(ready.message);

  if (ready.status === 'True') {
    if (generation !== undefined && observed !== generation) {
      return { state: 'progressing', reason: 'StaleGeneration', message: `generation ${generation} not reconciled yet (observed ${observed ?? 'none'})`, revision, transient: true };
    }
    if (o.sourceRevision !== undefined && revision !== o.sourceRevision) {
      return { state: 'stale', reason: 'StaleRevision', message: `applied ${revision ?? 'nothing'}, source is at ${o.sourceRevision}`, revision };
    }
    return { state: 'ready', reason: ready.reason ?? 'ReconciliationSucceeded', message, revision };
  }

  if (ready.status !== 'False') {
    // Ready=Unknown: KC sets it at the start of every reconcile, including periodic no-ops. Not a failure.
    const reconciling = findCondition(ks.status?.conditions, 'Reconciling');
    return { state: 'progressing', reason: ready.reason ?? 'Progressing', message: trim(reconciling?.message) || message || 'reconciliation in progress', revision };
  }

  // Ready=False from an older generation says nothing about the current spec: KC has not looked at it yet.
  if (generation !== undefined && condGen !== undefined && condGen !== generation && condGen >= 0) {
    return { state: 'progressing', reason: 'StaleGeneration', message: `generation ${generation} not reconciled yet; last: ${message}`, revision };
  }
  const reason = ready.reason ?? '';
  if (stalled?.status === 'True') return failed(stalled.reason ?? reason, trim(stalled.message) || message, revision);

  if (reason === 'DependencyNotReady') {
    const dep = parseDependency(message);
    const waitingFor = dep?.key ?? (o.dependencyKeys?.length === 1 ? o.dependencyKeys[0] : o.dependencyKeys?.join(', '));
    // "not ready according to readyExpr": the expression and what it gives. "is not ready" for an entry with a
    // readyExpr: the expression passed and KC checked Ready as well, which it does only with the gate on.
    const expr = dep && (dep.why === 'ready-expr' || dep.why === 'not-ready') ? readyExprOf(ks, dep.key, o) : undefined;
    const additive = dep?.why === 'not-ready' && expr
      ? o.readyExpr?.additive
        ? '; with AdditiveCELDependencyCheck on, the dependency must also be Ready'
        : '; kustomize-controller checked its Ready condition too, so its AdditiveCELDependencyCheck gate is on'
      : '';
    const text = expr ? `${message}: ${describeExpr(expr)}${additive}` : message;
    return { state: 'waiting', reason, message: text, revision, ...(waitingFor ? { waitingFor } : {}), ...(expr ? { readyExpr: expr } : {}), ...(additive ? { readyExprNote: additive } : {}) };
  }
  if (reason === 'ArtifactFailed') {
    // `kustomization path not found` is a repository error; everything else is the source not fetched (yet).
    if (/path not found/i.test(message)) return failed(reason, message, revision);
    const s = ks.spec?.sourceRef;
    const waitingFor = s?.kind && s.name ? refKey({ kind: s.kind, namespace: s.namespace ?? ks.metadata.namespace ?? null, name: s.name }) : undefined;
    return { state: 'waiting', reason, message, revision, ...(waitingFor ? { waitingFor } : {}) };
  }
  if (reason === 'ReconciliationFailed') return reconciliationFailed(message, revision);
  if (TERMINAL.has(reason)) return failed(reason, message, revision);
  if (RETRIED.has(reason)) return { state: 'progressing', reason, message, revision, ...diag(message) };
  // An unknown reason: bootstrap's wait treats any Ready=False as a failure, and so do we.
  return failed(reason || 'Unknown', message, revision);
}

/**
 * ReconciliationFailed covers dry-run rejections (terminal: the missing-CRD deadlock, schema errors) and transient API
 * trouble (a webhook without endpoints during a cold start): only the message tells them apart.
 */
function reconciliationFailed(message: string, revision: string | null): Readiness {
  if (/no matches for kind/.test(message)) return failed('ReconciliationFailed', message, revision);
  if (TRANSIENT.test(message)) return { state: 'progressing', reason: 'ReconciliationFailed', message, revision };
  return failed('ReconciliationFailed', message, revision);
}

function failed(reason: string, message: string, revision: string | null): Readiness {
  return { state: 'failed', reason, message, revision, ...diag(message) };
}

const diag = (message: string): { diagnosis?: Diagnosis } => {
  const d = diagnoseMessage(message);
  return d ? { diagnosis: d } : {};
};

export type { Condition };

/** The readyExpr of the dependsOn entry KC named, evaluated as KC does (`self` this Kustomization, `dep` the dependency). */
function readyExprOf(ks: LiveKustomization, key: string, o: ReadinessOptions): Readiness['readyExpr'] {
  const own = ks.metadata.namespace ?? '';
  const entry = ks.spec?.dependsOn?.find((d) => `${d.namespace || own}/${d.name}` === key && d.readyExpr);
  if (!entry?.readyExpr) return undefined;
  if (!o.readyExpr) return { text: entry.readyExpr, result: null, error: 'not evaluated here' };
  const v = judgeDependency(entry, ks, o.readyExpr.dependency(key), () => true, { cel: o.readyExpr.cel });
  return v.expr ?? { text: entry.readyExpr, result: null, error: v.state === 'not-found' ? `${key} not found` : 'not evaluated' };
}
