// When to ask helm-controller to reconcile a HelmRelease that it turned away for a dependency, as a pure function of
// what standup has asked so far (the track), the release, its dependencies as standup's watch sees them, and the
// time. helm-requester.ts performs it; test/runner/helm-decision.test.ts pins every rule.
//
// Mirrors helm-controller v1.6.4 (internal/controller/helmrelease_controller.go):
// - `checkDependencies`: each spec.dependsOn entry is a HelmRelease, its namespace defaulting to the dependent's own;
//   it is ready when `generation == status.observedGeneration` and Ready=True. With a `readyExpr` the expression (CEL,
//   `self` the release, `dep` the dependency) must be true, and replaces the built-in check unless the
//   AdditiveCELDependencyCheck gate is on (status/ready-expr.ts).
// - A failed check sets Ready=False, reason `DependencyNotReady`, message `dependency 'ns/name' is not ready` (or
//   `unable to get 'ns/name' dependency: ...`), leaves observedGeneration alone, and requeues only after
//   `--requeue-dependency` (30 s by default). Nothing watches the dependency, so a release whose dependency turns Ready
//   a moment after the check waits out the whole interval.
// - Every reconcile sets status.lastHandledReconcileAt to the `reconcile.fluxcd.io/requestedAt` value it saw, and a
//   change of that annotation enqueues the release (ReconcileRequestedPredicate). A request does not force anything:
//   an upgrade is forced only when `reconcile.fluxcd.io/forceAt` equals requestedAt (and a reset only when `resetAt`
//   does), and standup writes requestedAt alone, a fresh value each time.

import type { CelEngine } from '../status/cel.js';
import { FLUX_FINALIZER } from '../cluster/client.js';
import { findCondition } from '../status/conditions.js';
import type { LiveHelmRelease } from '../status/helm-source.js';
import { judgeDependency } from '../status/ready-expr.js';
import type { Backoff } from './tier-decision.js';


/** What standup has asked of one release so far. */
export interface HelmTrack {
  /** The last requestedAt value standup wrote, and how many it wrote. */
  requestedAt: string | null;
  requests: number;
  /** When the next request is due after helm-controller answered "not ready" again to standup's own. */
  againAt: number | null;
  /** helm-controller handled a request of standup's and got past the dependency check. */
  passed: boolean;
  /** Asked at its start (`finalized`), not for having been turned away: not counted as asked or passed. */
  early?: boolean;
}

export interface HelmDecision {
  track: HelmTrack;
  /**
   * Write requestedAt = `value`. `first`: the dependencies are Ready now; `again`: its answer to standup's was stale;
   * `finalized`: never reconciled, and helm-controller's own first reconcile waits on its rate limiter.
   */
  request: { value: string; why: 'first' | 'again' | 'finalized' } | null;
  /** Only for this decision: standup's request just got the release past the dependency check. */
  passedNow: boolean;
  /**
   * Why nothing is asked, for tests and logs. `ready-expr`: a readyExpr could not be evaluated (CEL not loaded yet,
   * or the expression does not parse or fails here), so helm-controller's own requeue decides.
   */
  why: 'asked' | 'no-deps' | 'suspended' | 'not-turned-away' | 'ready-expr' | 'deps-not-ready' | 'pending' | 'backing-off' | 'gave-up';
}

/** How helm-controller judges a readyExpr: the CEL engine (null: not loaded) and its AdditiveCELDependencyCheck gate. */
export interface HelmCel {
  cel: CelEngine | null;
  additive?: boolean;
}

export const DEPENDENCY_NOT_READY = 'DependencyNotReady';

/** After a first request, "not ready" again is asked after 250 ms, doubling to 5 s: as for Kustomizations. */
export const HELM_DEP_RETRY: Backoff = { initialMs: 250, maxMs: 5000 };

/**
 * Requests per release at most (the first and the re-requests: about 30 s of asking). helm-controller checks
 * dependencies uncached, so it disagreeing for longer with a watch that sees them Ready means something standup does
 * not model; its own requeue takes over then.
 */
export const HELM_MAX_REQUESTS = 10;

export const newHelmTrack = (): HelmTrack => ({ requestedAt: null, requests: 0, againAt: null, passed: false });

/** `namespace/name` of each dependency, the namespace defaulting to the release's own (helm-controller's rule). */
export function dependencyKeys(hr: LiveHelmRelease): string[] {
  const ns = hr.metadata.namespace ?? '';
  return (hr.spec?.dependsOn ?? []).map((d) => `${d.namespace || ns}/${d.name}`);
}

/** helm-controller's built-in readiness of a dependency: it exists, is reconciled at its generation, and Ready=True. */
export function dependencyReady(dep: LiveHelmRelease | undefined): boolean {
  if (!dep) return false;
  if (dep.metadata.generation === undefined || dep.metadata.generation !== dep.status?.observedGeneration) return false;
  return findCondition(dep.status?.conditions, 'Ready')?.status === 'True';
}

/**
 * Whether every dependency passes helm-controller's checkDependencies now: each entry judged as it does, a readyExpr
 * evaluated with CEL. `unknown` when a readyExpr could not be evaluated here.
 */
export function dependenciesPass(hr: LiveHelmRelease, lookup: (key: string) => LiveHelmRelease | undefined, c: HelmCel): 'yes' | 'no' | 'unknown' {
  const ns = hr.metadata.namespace ?? '';
  let unknown = false;
  for (const d of hr.spec?.dependsOn ?? []) {
    const v = judgeDependency(d, hr, lookup(`${d.namespace || ns}/${d.name}`), (x) => dependencyReady(x as LiveHelmRelease), c);
    if (v.state === 'unknown') unknown = true;
    else if (!v.ready) return 'no';
  }
  return unknown ? 'unknown' : 'yes';
}

/** The next step for one release. Never does I/O; the same inputs always give the same decision. */
export function decideHelmRelease(track: HelmTrack, hr: LiveHelmRelease, lookup: (key: string) => LiveHelmRelease | undefined, now: number, backoff: Backoff = HELM_DEP_RETRY, cel: HelmCel = { cel: null }): HelmDecision {
  const t = { ...track };
  const ready = findCondition(hr.status?.conditions, 'Ready');
  const answered = t.requestedAt !== null && hr.status?.lastHandledReconcileAt === t.requestedAt;
  const turnedAway = ready !== undefined && ready.status !== 'True' && ready.reason === DEPENDENCY_NOT_READY;
  const passedNow = answered && !turnedAway && !t.passed && !t.early;
  if (passedNow) t.passed = true;
  const none = (why: HelmDecision['why']): HelmDecision => ({ track: t, request: null, passedNow, why });

  const deps = hr.spec?.dependsOn ?? [];
  if (hr.spec?.suspend) return none('suspended');
  // helm-controller's reconcile of a new release only adds its finalizer and asks to be requeued, which Flux's rate
  // limiter holds back --min-retry-delay (750 ms) before the reconcile that installs it: on every new release, and on
  // the path wherever a tier waits on it. Once the finalizer is there and its dependencies pass, a request starts that
  // reconcile at once; the priority queue merges the delayed one into it (as for Kustomizations: tier-decision.ts).
  if (t.requestedAt === null && ready === undefined && hr.metadata.finalizers?.includes(FLUX_FINALIZER)) {
    if (deps.length > 0 && dependenciesPass(hr, lookup, cel) !== 'yes') return none('deps-not-ready');
    t.requests++;
    t.early = true;
    t.requestedAt = new Date(now).toISOString();
    return { track: t, request: { value: t.requestedAt, why: 'finalized' }, passedNow, why: 'asked' };
  }
  if (deps.length === 0) return none('no-deps');
  if (!turnedAway) return none('not-turned-away');
  const pass = dependenciesPass(hr, lookup, cel);
  if (pass === 'no') return none('deps-not-ready');
  if (pass === 'unknown') return none('ready-expr');
  if (t.requestedAt !== null && !answered) return none('pending');
  if (t.requests >= HELM_MAX_REQUESTS) return none('gave-up');
  if (t.requestedAt !== null) {
    // Its answer to standup's own request came from a moment before the dependency turned Ready.
    t.againAt ??= now + Math.min(backoff.maxMs, backoff.initialMs * 2 ** (t.requests - 1));
    if (now < t.againAt) return none('backing-off');
  }
  const why = t.requestedAt === null ? 'first' : 'again';
  t.againAt = null;
  t.requests++;
  t.requestedAt = new Date(now).toISOString();
  return { track: t, request: { value: t.requestedAt, why }, passedNow, why: 'asked' };
}
