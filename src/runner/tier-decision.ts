// What converge does next for one tier, as a pure function of what standup has done for it (the track), what the
// cluster says (the view) and the time. converge.ts performs the result (events, reconcile requests); the tables in
// test/runner/tier-decision.test.ts pin every rule without a cluster or a fake.

import type { ChartFailure } from '../status/helm-source.js';
import type { Readiness } from '../status/kustomization.js';
import { shortRevision } from '../status/revision.js';
import type { WorkloadReport } from '../status/workload.js';
import { statusLine } from './explain.js';

/** What standup has done for one tier so far. */
export interface TierTrack {
  key: string;
  /** When its dependencies were ready and standup started waiting on it (its timeout counts from here). */
  startedAt: number | null;
  /** The last `reconcile.fluxcd.io/requestedAt` value standup wrote, if any. */
  requestedAt: string | null;
  /** A terminal failure earns one more reconcile request before standup gives up. */
  secondChance: boolean;
  /** Reconcile requests made after transient failures, and when the next one is due. */
  retries: number;
  retryAt: number | null;
  /** Requests made again because Flux answered DependencyNotReady after standup saw every dependency Ready. */
  depRetries: number;
  depRetryAt: number | null;
  /** When standup first left the tier's first reconcile to kustomize-controller's own queue (see leftToFlux). */
  leftToFluxAt: number | null;
}

/** What the cluster and the rest of the run say about the tier now. */
export interface TierView {
  readiness: Readiness;
  /** The Kustomization exists in the cluster. */
  exists: boolean;
  /** status.lastHandledReconcileAt and status.lastAttemptedRevision of the live object. */
  lastHandledReconcileAt?: string;
  lastAttemptedRevision?: string;
  /** The source's current artifact revision, when known. */
  sourceRevision: string | null;
  /**
   * kustomize-controller has handled the Kustomization's creation: it carries KC's finalizer. That first reconcile
   * only adds the finalizer and asks to be requeued, which Flux's rate limiter holds back --min-retry-delay (750 ms).
   */
  finalizedByFlux?: boolean;
  /** The source had its current revision already when the run first saw the Kustomization (no source event for it). */
  sourceBeforeIt?: boolean;
  /** Every dependency has ended ok (or skipped). */
  depsDone: boolean;
  /** Dependencies that ended without becoming Ready (failed, timed out, or themselves not run). */
  depsFailed: readonly string[];
  /** The Kustomization whose build applies this one, and whether it has ended ok. */
  parent: string | null;
  parentDone: boolean;
  /** The first look of the run: a tier Ready now was Ready before standup did anything (resume skips it). */
  firstPass: boolean;
  timeoutMs: number;
  /**
   * For a missing-CRD failure: the CRD is on its way (runtimeCrds names the operator, and its trigger object exists:
   * the split layout), in words for the status line. The tier then waits for it instead of failing.
   */
  crdOnItsWay?: string | null;
  /**
   * A HelmRelease the tier's health check waits on can never get its chart (source-controller's Stalled verdict on its
   * chart source, for the release's current spec, while KC checks the source's current revision): the tier fails now
   * instead of at its timeout.
   */
  chartFailure?: ChartFailure | null;
  /** HelmReleases waiting for a chart that may still come (a repository unreachable), in words for the status line. */
  chartWaiting?: string | null;
  /**
   * A Deployment the health check waits on whose image pull cannot succeed as written (an invalid reference, or one
   * the registry says does not exist): the tier fails now instead of at its timeout.
   */
  workloadFailure?: WorkloadReport | null;
  /** Deployments the health check waits on whose pods have a problem (pod, container, reason, image), in words. */
  workloadsWaiting?: string | null;
}

export type TierOutcome =
  | { type: 'finish'; result: 'ok' | 'skipped'; message: string }
  /** Something it waits on ended without becoming Ready: it cannot run. */
  | { type: 'block'; by: readonly string[] }
  | { type: 'fail'; suspended: boolean; chart?: ChartFailure; workload?: WorkloadReport }
  | { type: 'timeout'; line: string };

export interface TierDecision {
  track: TierTrack;
  /** Start the tier's step now (its dependencies just became ready). */
  start: boolean;
  /** Write `reconcile.fluxcd.io/requestedAt` = `value`; `note` goes into the status line. */
  request: { value: string; why: 'first' | 'second-chance' | 'transient' | 'dependency-ready'; note: string | null } | null;
  /** The tier is over. */
  outcome: TierOutcome | null;
  /** The status line to show, or null when there is nothing (new) to say. */
  line: string | null;
}

export interface Backoff {
  initialMs: number;
  maxMs: number;
}

/**
 * A Ready=False counts only when it speaks for now: KC has handled standup's reconcile request (if any), and it
 * attempted the source's current revision. A failure left over from before a fix (say, before `standup crds`) does not.
 */
export function failureIsCurrent(v: TierView, requestedAt: string | null): boolean {
  if (!v.exists) return false;
  if (requestedAt !== null && v.lastHandledReconcileAt !== requestedAt) return false;
  return !(v.sourceRevision && v.lastAttemptedRevision && v.lastAttemptedRevision !== v.sourceRevision);
}

/** The next step for one tier. Never does I/O; the same inputs always give the same decision. */
export function decideTier(track: TierTrack, v: TierView, now: number, backoff: Backoff, queueGraceMs = FLUX_QUEUE_GRACE_MS): TierDecision {
  const t = { ...track };
  const none = (outcome: TierOutcome | null = null, line: string | null = null): TierDecision => ({ track: t, start: false, request: null, outcome, line });
  const r = v.readiness;

  if (r.state === 'ready') {
    const skipped = v.firstPass && t.startedAt === null;
    // Ready from a reconcile that began before standup's request: KC runs the requested one next, and every reconcile
    // starts with Ready=Unknown. Over only once KC has answered, so a dependent is not turned away by that flicker
    // and `status` right after the run agrees with it.
    if (!skipped && t.requestedAt !== null && v.exists && v.lastHandledReconcileAt !== t.requestedAt) return none();
    const revision = shortRevision(r.revision);
    return { ...none({ type: 'finish', result: skipped ? 'skipped' : 'ok', message: skipped ? `already Ready at ${revision}` : `Ready at ${revision}` }), start: !skipped && t.startedAt === null };
  }
  if (v.depsFailed.length > 0) return none({ type: 'block', by: v.depsFailed });
  if (!v.depsDone || (!v.exists && !v.parentDone)) return none();

  const start = t.startedAt === null;
  if (start) t.startedAt = now;
  const decision = (d: Partial<TierDecision>): TierDecision => ({ track: t, start, request: null, outcome: null, line: null, ...d });

  if (r.state === 'suspended') return decision({ outcome: { type: 'fail', suspended: true } });

  // What standup says of a tier it leaves to KC's own queue, when Flux's words for it are stale.
  let queuedLine: string | null = null;
  if (v.exists && t.requestedAt === null) {
    const left = leftToFlux(t, v, now, queueGraceMs);
    if (left) queuedLine = left.line;
    // What KC's own reconcile answered with a failure is current (it began after standup started waiting): the rules
    // below judge it, and a terminal one gets its second chance, not a first request and then a second.
    else if (!(t.leftToFluxAt !== null && r.state === 'failed' && failureIsCurrent(v, null))) {
      // The first request: nothing Flux reported before it counts yet.
      t.requestedAt = new Date(now).toISOString();
      return decision({ request: { value: t.requestedAt, why: 'first', note: null }, line: lineFor(v) });
    }
  }
  // Stalled is source-controller's last word for that spec: neither waiting nor another reconcile of the tier changes it.
  if (v.chartFailure) return decision({ outcome: { type: 'fail', suspended: false, chart: v.chartFailure } });
  // The pod runs the template KC applied at the current revision (describeWatchedDeployments keeps only those):
  // waiting, or another reconcile of the same revision, cannot change the image it asks for.
  const appliedNow = !(v.sourceRevision && v.lastAttemptedRevision && v.lastAttemptedRevision !== v.sourceRevision);
  if (v.workloadFailure && v.exists && appliedNow) return decision({ outcome: { type: 'fail', suspended: false, workload: v.workloadFailure } });
  const current = failureIsCurrent(v, t.requestedAt);
  // What the health check waits on comes first: at 80 columns KC's "Running health checks ..." would hide it.
  const base = v.workloadsWaiting && v.readiness.state !== 'failed' ? `health check waiting on ${v.workloadsWaiting}` : (queuedLine ?? lineFor(v));
  const line = v.chartWaiting ? `${base}; ${v.chartWaiting}` : base;
  if (r.state === 'waiting' && r.reason === 'DependencyNotReady' && v.lastHandledReconcileAt === t.requestedAt) {
    // KC handled standup's request but found a dependency not ready that standup already saw Ready: its answer came
    // from a moment before (measured: 6-24 ms after the dependency turned Ready). KC then requeues only
    // after --requeue-dependency (30 s by default), so ask again soon instead, backing off.
    if (now - t.startedAt! > v.timeoutMs) return decision({ outcome: { type: 'timeout', line } });
    const value = askAgainDue(t, now, DEP_RETRY, 'depRetries', 'depRetryAt');
    if (value === null) return decision({ line });
    return decision({ request: { value, why: 'dependency-ready', note: null }, line });
  }
  if (r.state === 'failed' && current && v.crdOnItsWay) {
    // Not the deadlock: the operator has what makes it create the CRD. Ask again with backoff, within the timeout.
    if (now - t.startedAt! > v.timeoutMs) return decision({ outcome: { type: 'timeout', line: v.crdOnItsWay } });
    const value = askAgainDue(t, now, backoff, 'retries', 'retryAt');
    if (value === null) return decision({ line: v.crdOnItsWay });
    const note = `asking Flux again (${t.retries})`;
    return decision({ request: { value, why: 'transient', note }, line: `${v.crdOnItsWay}; ${note}` });
  }
  if (r.state === 'failed' && current && !t.secondChance) {
    // One more reconcile before failing: a cold start meets one-off failures (a controller's temp dir gone, a webhook
    // not serving yet) that Flux would only retry after retryInterval. A real failure repeats at once.
    t.secondChance = true;
    t.requestedAt = new Date(now).toISOString();
    return decision({ request: { value: t.requestedAt, why: 'second-chance', note: 'asking Flux once more' }, line: `${statusLine(r)}; asking Flux once more` });
  }
  if (r.state === 'progressing' && r.reason === 'ReconciliationFailed' && current) {
    // Transient API trouble (the API server restarting, a webhook without endpoints yet): Flux would try again only
    // after retryInterval (often minutes). Ask again sooner, backing off.
    const value = askAgainDue(t, now, backoff, 'retries', 'retryAt');
    if (value !== null) {
      const note = `asking Flux again (${t.retries})`;
      return decision({ request: { value, why: 'transient', note }, line: `${statusLine(r)}; ${note}` });
    }
  }
  if (r.state === 'failed' && current) return decision({ outcome: { type: 'fail', suspended: false } });
  if (now - t.startedAt! > v.timeoutMs) return decision({ outcome: { type: 'timeout', line } });
  return decision({ line: r.transient ? null : line });
}

/**
 * Backing off between reconcile requests: the first call schedules the next one; once it is due, counts it, writes the
 * new request value into the track and returns it (null: not due yet). `t` is the decision's own copy of the track.
 */
function askAgainDue(t: TierTrack, now: number, b: Backoff, count: 'retries' | 'depRetries', at: 'retryAt' | 'depRetryAt'): string | null {
  t[at] ??= now + Math.min(b.maxMs, b.initialMs * 2 ** t[count]);
  if (now < t[at]!) return null;
  t[count]++;
  t[at] = null;
  t.requestedAt = new Date(now).toISOString();
  return t.requestedAt;
}

/**
 * Whether standup leaves the tier's first reconcile to kustomize-controller, which runs it without being asked: a
 * request that lands while that reconcile runs makes it run twice (measured on the 8-tier chain: the root sync twice in
 * every run, 360-530 ms beside tiers 1 and 2; tier-3 twice in 2 runs of 4, +300 ms on the path). A tier KC has queued
 * but not started is asked after the grace all the same. Null: ask now. `t` is the decision's own copy of the track.
 */
function leftToFlux(t: TierTrack, v: TierView, now: number, graceMs: number): { line: string | null } | null {
  const r = v.readiness;
  const queued = queuedByFlux(v);
  // A reconcile KC runs now answers for now when it is one standup saw queued, or when its progress message names the
  // source's current revision (every one of KC's does: "Fetching manifests for revision <rev> with a timeout of ...").
  // A transient state is KC's own status update half seen (Ready=True a moment before observedGeneration): the end of
  // a reconcile, never a reason to start another.
  const running = r.transient === true || (r.state === 'progressing' && r.reason === 'Progressing' && (t.leftToFluxAt !== null || (!!v.sourceRevision && r.message.includes(v.sourceRevision))));
  if (queued === undefined && !running) return null;
  t.leftToFluxAt ??= now;
  return running || now - t.leftToFluxAt < graceMs ? { line: queued ?? null } : null;
}

/**
 * Whether kustomize-controller has the tier in its own work queue: undefined if it may not, else the words for the
 * status line where Flux's own are stale (null: they are not).
 * - No Ready condition yet and no finalizer: the creation event queued it, and KC has not handled it.
 * - "Source artifact not found" (or the source not found) while the source has an artifact now: KC watches its
 *   sources and queues every Kustomization not Ready at a new artifact revision (requestsForRevisionChangeOf, behind
 *   SourceRevisionChangePredicate, which passes an artifact appearing), so the reconcile that failed is followed by
 *   one that finds it.
 */
function queuedByFlux(v: TierView): string | null | undefined {
  const r = v.readiness;
  // Once KC has added its finalizer, the reconcile that does the work waits on the rate limiter (750 ms; measured on
  // the chain: tier-1 started 650 ms after its finalizer), not on an event, unless the source's artifact arrived
  // since (KC's source watch then runs it now; a request landing in it would run it twice, as the root sync was under
  // load): a request now is taken at once. controller-runtime's priority queue (the default since v0.23; the
  // testbed's kustomize-controller v1.9.6 has v0.24.1) keeps one entry per object, so the delayed one merges into
  // it; an older queue runs the tier a second time after, off the path.
  if (r.reason === 'NotReconciled') return v.finalizedByFlux && v.sourceBeforeIt ? undefined : null;
  if (r.state === 'waiting' && r.reason === 'ArtifactFailed' && v.sourceRevision && SOURCE_MISSING.test(r.message)) {
    return `its source has an artifact now (${shortRevision(v.sourceRevision)}); kustomize-controller has it queued`;
  }
  return undefined;
}

// KC's two ArtifactFailed messages for a source not there yet; a failed download of an existing artifact is retried
// on KC's backoff instead, which a watch event does not shorten.
const SOURCE_MISSING = /^Source (artifact|'[^']*') not found/;

/** How long a tier KC has queued on its own may stay unstarted before standup asks all the same. */
export const FLUX_QUEUE_GRACE_MS = 5000;

function lineFor(v: TierView): string {
  return v.exists || !v.parent ? statusLine(v.readiness) : `not applied yet (${v.parent} applies it)`;
}

export const newTrack = (key: string): TierTrack => ({
  key,
  startedAt: null,
  requestedAt: null,
  secondChance: false,
  retries: 0,
  retryAt: null,
  depRetries: 0,
  depRetryAt: null,
  leftToFluxAt: null,
});

/** How soon to ask again after a stale DependencyNotReady: soon, since the dependency is Ready, but never in a loop. */
export const DEP_RETRY: Backoff = { initialMs: 250, maxMs: 5000 };
