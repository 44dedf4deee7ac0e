import { FLUX_FINALIZER, FLUX_KUSTOMIZATION, type ClusterClient } from '../cluster/client.js';
import { nodeKeyParts, type FluxKustomization, type FluxResourceSet } from '../model/flux.js';
import type { PlanContext } from '../plan/plan.js';
import { humanDuration } from '../status/durations.js';
import { kustomizationReadiness, type Readiness } from '../status/kustomization.js';
import { systemClock, type Clock } from './clock.js';
import { tierFailedError, WaitTimeoutError, type TierFailure } from './errors.js';
import type { Emit, StepCause, StepId, StepResult, StepState } from './events.js';
import type { LiveState } from './live-state.js';
import type { OutageLog } from './outages.js';
import { requestReconcile } from './request-reconcile.js';
import { timeoutFor, type CrdKnowledge, type FallbackCrd, type ImageLocator, type Timeouts } from './run-target.js';
import { assertNoFight } from './source.js';
import { resourceSetStepId, tierStepId } from './step-id.js';
import { decideResourceSet, type ResourceSetOutcome, type ResourceSetTrack } from './rset-decision.js';
import { observeResourceSet, type TierStanding } from './rset-observe.js';
import { resultOf, type StepTracker } from './steps.js';
import { decideTier, newTrack, type Backoff, type TierOutcome, type TierTrack } from './tier-decision.js';
import { tierEnd, type TierEnd, type TierEndResult as Ended } from './tier-end.js';
import { observeTier } from './tier-observe.js';
import { parseKsKey, type ApiRef, type ObjRef } from '../model/ref.js';

export interface ConvergeOptions {
  /** kustomize-controller's AdditiveCELDependencyCheck (a readyExpr adds to the Ready check), for the live lines. */
  additiveCel?: boolean;
  ctx: PlanContext;
  client: ClusterClient;
  live: LiveState;
  steps: StepTracker;
  emit: Emit;
  signal: AbortSignal;
  timeouts: Timeouts;
  fallback: readonly FallbackCrd[];
  knowledge: CrdKnowledge;
  outages?: OutageLog;
  /** Where an image is written in the repository (the CLI reads the file). */
  locateImage?: ImageLocator;
  clock?: Clock;
  /** Upper bound between two looks at the state when nothing changes (timers, logs). */
  tickMs?: number;
  /** Backoff between reconcile requests after transient failures: 2 s doubling to 30 s by default. */
  retryBackoff?: Backoff;
  /** How long a tier kustomize-controller has queued on its own may stay unstarted before standup asks (tests). */
  fluxQueueGraceMs?: number;
  /** Where each tier that fails is added as it fails, so a run stopped later (Ctrl-C, --timeout) still names it. */
  failures?: TierFailure[];
}

/** How one tier of a run ended, and the revision it was Ready at. */
export interface TierResult {
  key: string;
  result: StepResult;
  revision: string | null;
}

interface Tier {
  node: FluxKustomization;
  id: StepId;
  track: TierTrack;
  ended: Ended | null;
  readiness: Readiness;
  /** What the last look at its HelmReleases' chart sources said of those still waiting for one. */
  chartWaiting: string | null;
  /** How it ended, in a few words, for the tiers it keeps from running. */
  why: string | null;
  /** A failure or timeout decided, held until what its message needs has been observed. */
  ending: TierOutcome | null;
  /** The Deployments its build applies (from the repository). */
  deployments: ObjRef[];
}

/** A ResourceSet of the plan: a tier of its own kind (rset-decision.ts). */
interface RsTier {
  rs: FluxResourceSet;
  id: StepId;
  track: ResourceSetTrack;
  ended: Ended | null;
  readiness: Readiness;
  why: string | null;
  /** Its first view came (the ResourceSet watch lists after the first look): what is Ready then was Ready before. */
  seen: boolean;
}

/** What the act phase does, in the order the decisions asked for it. */
type Act =
  | { type: 'start'; id: StepId }
  | { type: 'request'; id: StepId; ref: ApiRef; value: string }
  | { type: 'status'; id: StepId; state: StepState; line: string }
  | { type: 'end'; id: StepId; result: Ended; end: () => Promise<{ message: string; cause?: StepCause }> };

/**
 * Waits until every Kustomization of the plan is Ready at its source's current revision, requesting a reconcile of
 * each the moment its dependencies are ready, so none waits out kustomize-controller's --requeue-dependency.
 * Independent tiers progress together (a frontier, not level by level). Each look has three phases: observe (the
 * watches, never a request), decide (tier-decision.ts, pure), act (reconcile requests and step events), so no tier
 * waits on a request made for another. A tier that fails (terminally, at the current revision) or times out ends
 * alone: what depends on it is not run, everything else goes on, and the run then fails with every such tier named.
 * On an interrupt, each tier's step ends with what the cluster says at that moment.
 */
export async function converge(o: ConvergeOptions): Promise<TierResult[]> {
  const clock = o.clock ?? systemClock;
  const { graph, plan } = o.ctx;
  const tiers = plan.kustomizations.map((k): Tier => ({
    node: graph.nodes.get(k.key)!,
    id: tierStepId(k.key),
    track: newTrack(k.key),
    ended: null,
    readiness: kustomizationReadiness(undefined),
    chartWaiting: null,
    why: null,
    ending: null,
    deployments: o.ctx.cluster.objects.filter((x) => x.owner === k.key && x.kind === 'Deployment' && x.apiVersion === 'apps/v1').map((x) => ({ kind: 'Deployment', namespace: x.namespace ?? parseKsKey(k.key).namespace, name: x.name })),
  }));
  const byKey = new Map(tiers.map((t) => [t.node.key, t]));
  // The ResourceSets, waited on beside the Kustomizations: those generated by one have it as their parent.
  const rsTiers = (plan.resourceSets ?? []).flatMap((p): RsTier[] => {
    const rs = graph.resourceSets.get(p.key);
    return rs ? [{ rs, id: resourceSetStepId(`${rs.namespace}/${rs.name}`), track: { startedAt: null }, ended: null, readiness: kustomizationReadiness(undefined), why: null, seen: false }] : [];
  });
  const anyByKey = new Map<string, { ended: Ended | null; why: string | null }>([...byKey, ...rsTiers.map((r) => [r.rs.key, r] as const)]);
  const standing = (key: string): TierStanding | undefined => {
    const x = anyByKey.get(key);
    return x === undefined ? undefined : x.ended === 'ok' || x.ended === 'skipped' ? 'done' : x.ended ? 'failed' : 'pending';
  };
  const backoff = o.retryBackoff ?? { initialMs: 2000, maxMs: 30_000 };
  const failures: TierFailure[] = o.failures ?? [];
  const timedOut: { key: string; message: string }[] = [];
  const notReady = (x: { ended: Ended | null } | undefined) => x !== undefined && (x.ended === 'failed' || x.ended === 'timeout' || x.ended === 'not-run');
  const isDone = (x: { ended: Ended | null }) => x.ended === 'ok' || x.ended === 'skipped';
  let first = true;

  try {
    for (;;) {
      o.live.check();
      assertNoFight(o.live, o.ctx.rootSync.source);
      const seen = o.live.version;
      const now = clock.now();
      const acts: Act[] = [];
      const end = (t: Tier, result: Ended, e: TierEnd) => {
        t.ended = result;
        t.ending = null;
        t.why ??= e.why ?? (result === 'timeout' ? 'timed out' : result);
        acts.push({ type: 'end', id: t.id, result, end: async () => {
          const { message, hint, cause } = await e.finish();
          if (result === 'timeout') timedOut.push({ key: t.node.key, message: `${t.node.key} ${message}` });
          else if (result === 'failed') failures.push({ key: t.node.key, message, hint: hint ?? '' });
          return { message, cause };
        } });
      };
      const endResourceSet = (r: RsTier, outcome: ResourceSetOutcome, timeoutMs: number) => {
        const key = r.rs.key;
        const [result, message]: [Ended, string] =
          outcome.type === 'finish' ? [outcome.result, outcome.message]
          : outcome.type === 'block' ? ['not-run', `not run, not evaluated: ${outcome.by.map((b) => `${b} ${anyByKey.get(b)?.why ?? 'did not become Ready'}`).join('; ')}`]
          : outcome.type === 'fail' ? ['failed', outcome.message]
          : ['timeout', `not Ready after its timeout (${humanDuration(timeoutMs)}): ${outcome.line}`];
        r.ended = result;
        r.why = result === 'timeout' ? 'timed out' : result;
        if (outcome.type === 'fail') failures.push({ key, message: outcome.message, hint: outcome.hint });
        if (outcome.type === 'timeout') timedOut.push({ key, message: `${key} ${message}` });
        acts.push({ type: 'end', id: r.id, result, end: async () => ({ message }) });
      };
      const settle = (t: Tier, outcome: TierOutcome) => {
        const e = tierEnd(t.node, outcome, {
          readiness: t.readiness,
          track: t.track,
          chartWaiting: t.chartWaiting,
          why: (key) => anyByKey.get(key)?.why ?? null,
          ctx: o.ctx,
          live: o.live,
          timeoutMs: timeoutFor(o.timeouts, t.node.key),
          fallback: o.fallback,
          knowledge: o.knowledge,
          outages: o.outages,
          locateImage: o.locateImage,
        });
        if (e === undefined) t.ending = outcome;
        else end(t, e.result, e);
      };

      // Observe and decide, tier by tier in plan order: a tier that ends here is seen ended by those after it.
      for (const t of tiers) {
        if (t.ended) continue;
        if (t.ending) {
          settle(t, t.ending);
          continue;
        }
        const key = t.node.key;
        const cluster = observeTier(t.node, graph.deps.get(key), t.track, o.live, o.knowledge.runtimeCrds, t.deployments, o.additiveCel);
        t.readiness = cluster.readiness;
        // What the decision needs is still being listed (a watch just started): decide at the next look.
        if (cluster.crdOnItsWay === undefined || cluster.charts === undefined) continue;
        if (cluster.charts) t.chartWaiting = cluster.charts.waiting;
        const deps = graph.deps.get(key) ?? [];
        const parentKey = t.node.parent !== null && anyByKey.has(t.node.parent) ? t.node.parent : null;
        const parent = parentKey !== null ? anyByKey.get(parentKey)! : null;
        const depsFailed = [...deps.filter((d) => notReady(byKey.get(d))), ...(!cluster.live && notReady(parent ?? undefined) ? [parentKey!] : [])];
        const d = decideTier(
          t.track,
          {
            readiness: cluster.readiness,
            exists: !!cluster.live,
            lastHandledReconcileAt: cluster.live?.status?.lastHandledReconcileAt,
            lastAttemptedRevision: cluster.live?.status?.lastAttemptedRevision,
            sourceRevision: cluster.sourceRevision,
            finalizedByFlux: cluster.live?.metadata.finalizers?.includes(FLUX_FINALIZER) ?? false,
            sourceBeforeIt: !!cluster.sourceRevision && o.live.sourceRevisionAtFirstSight(key) === cluster.sourceRevision,
            depsDone: deps.every((x) => isDone(byKey.get(x)!)),
            depsFailed,
            parent: parentKey,
            parentDone: parent === null || isDone(parent),
            firstPass: first,
            timeoutMs: timeoutFor(o.timeouts, key),
            crdOnItsWay: cluster.crdOnItsWay,
            chartFailure: cluster.charts?.failure ?? null,
            chartWaiting: cluster.charts?.waiting ?? null,
            workloadFailure: cluster.workloads?.failure ?? null,
            workloadsWaiting: cluster.workloads?.waiting ?? null,
          },
          now,
          backoff,
          o.fluxQueueGraceMs,
        );
        t.track = d.track;
        if (d.start) acts.push({ type: 'start', id: t.id });
        if (d.request) acts.push({ type: 'request', id: t.id, ref: { ...FLUX_KUSTOMIZATION, namespace: t.node.namespace, name: t.node.name }, value: d.request.value });
        if (d.line) acts.push({ type: 'status', id: t.id, state: t.readiness.state, line: d.line });
        if (d.outcome) settle(t, d.outcome);
      }
      for (const r of rsTiers) {
        if (r.ended) continue;
        const { namespace, name } = nodeKeyParts(r.rs.key);
        const kustomization = (key: string) => byKey.get(key)?.readiness ?? kustomizationReadiness(o.live.kustomizations.get(key));
        const v = observeResourceSet(r.rs, { ctx: o.ctx, live: o.live, standing, kustomization, firstPass: !r.seen, timeoutMs: timeoutFor(o.timeouts, `${namespace}/${name}`) });
        if (!v) continue;
        r.seen = true;
        r.readiness = v.readiness;
        const d = decideResourceSet(r.track, v, now);
        r.track = d.track;
        if (d.start) acts.push({ type: 'start', id: r.id });
        if (d.line) acts.push({ type: 'status', id: r.id, state: v.exists ? v.readiness.state : 'waiting', line: d.line });
        if (d.outcome) endResourceSet(r, d.outcome, v.timeoutMs);
      }
      first = false;

      // Act: what the decisions asked for, in their order.
      for (const a of acts) {
        if (a.type === 'start') o.steps.start(a.id);
        else if (a.type === 'request') await requestReconcile({ client: o.client, emit: o.emit, id: a.id, signal: o.signal, clock }, a.ref, a.value);
        else if (a.type === 'status') o.steps.status(a.id, a.state, a.line);
        else {
          const { message, cause } = await a.end();
          o.steps.end(a.id, a.result, message, cause);
        }
      }
      if (tiers.every((t) => t.ended) && rsTiers.every((r) => r.ended)) break;
      // A retry due before the next tick (a stale DependencyNotReady is asked again after 250 ms) is not made to wait.
      const due = Math.min(...tiers.filter((t) => !t.ended).flatMap((t) => [t.track.retryAt, t.track.depRetryAt]).filter((x): x is number => x !== null));
      await o.live.changed(Math.max(10, Math.min(o.tickMs ?? 1000, due - clock.now())), seen);
    }
  } catch (e) {
    // Interrupted, --timeout, the API gone for good: each tier's step not ended yet (an end decided in the look that
    // failed included) ends with what the cluster says now.
    const result = resultOf(e);
    for (const t of [...tiers, ...rsTiers]) {
      if (o.steps.ended(t.id)) continue;
      if (t.readiness.state === 'ready') o.steps.end(t.id, o.steps.started(t.id) ? 'ok' : 'skipped', `Ready at ${t.readiness.revision ?? 'the current revision'}`);
      else if (o.steps.started(t.id)) o.steps.end(t.id, result === 'failed' ? 'stopped' : result, o.steps.lastLine(t.id) || t.readiness.message);
      else o.steps.end(t.id, 'not-run', 'not started: what it depends on was not Ready yet');
    }
    throw e;
  }
  const results = tiers.map((t) => ({ key: t.node.key, result: t.ended!, revision: t.readiness.revision }));
  if (failures.length > 0) {
    throw tierFailedError(failures, timedOut.length ? `timed out: ${timedOut.map((x) => x.key).join(', ')}` : '');
  }
  if (timedOut.length > 0) {
    throw new WaitTimeoutError(timedOut.map((x) => x.message).join('\n'), timedOut.map((x) => x.key));
  }
  return results;
}
