import { FLUX_KUSTOMIZATION, type ClusterClient } from '../cluster/client.js';
import { splitKey } from '../model/ref.js';
import type { PlanContext } from '../plan/plan.js';
import { kustomizationReadiness, type Readiness } from '../status/kustomization.js';
import { humanDuration } from '../status/durations.js';
import { sourceReadiness } from '../status/source.js';
import { TierFailedError, WaitTimeoutError } from './errors.js';
import { tierStepId, type ChartSourceCause, type Emit, type StepResult } from './events.js';
import { explainChartFailure, explainFailure, workloadLines, type Locate } from './explain.js';
import { readChartVerdicts, releasesWithoutChart } from './chart-sources.js';
import type { ChartVerdict } from '../status/helm-source.js';
import { timeoutFor, type CrdKnowledge, type FallbackCrd, type Timeouts } from './inputs.js';
import type { LiveState } from './live-state.js';
import type { OutageLog } from './outages.js';
import { requestReconcile } from './request-reconcile.js';
import { assertNoFight } from './source.js';
import { resultOf, type StepTracker } from './steps.js';
import { chartReadDue, decideTier, newTrack, type Backoff, type TierTrack } from './tier-decision.js';
import { describeWorkloads, liveCrdGroups } from './workloads.js';
import { crdOnItsWay } from './runtime-crd-wait.js';

export interface ConvergeOptions {
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
  now?: () => number;
  /** Upper bound between two looks at the state when nothing changes (timers, logs). */
  tickMs?: number;
  /** Backoff between reconcile requests after transient failures: 2 s doubling to 30 s by default. */
  retryBackoff?: Backoff;
}

export interface TierOutcome {
  key: string;
  result: StepResult;
  revision: string | null;
}

type Ended = 'ok' | 'skipped' | 'failed' | 'timeout' | 'not-run';

interface Tier {
  track: TierTrack;
  ended: Ended | null;
  readiness: Readiness;
  revision: string | null;
  /** The last read of its HelmReleases' chart sources, and what it said of those still waiting for one. */
  charts: ChartVerdict[];
  chartWaiting: string | null;
  /** How it ended, in a few words, for the tiers it keeps from running. */
  why: string | null;
}

/**
 * Waits until every Kustomization of the plan is Ready at its source's current revision, requesting a reconcile of
 * each the moment its dependencies are ready, so none waits out kustomize-controller's --requeue-dependency.
 * Independent tiers progress together (a frontier, not level by level). A tier that fails (terminally, at the current
 * revision) or times out ends alone: what depends on it is not run, everything else goes on, and the run then fails
 * with every such tier named. On an interrupt, each tier's step ends with what the cluster says at that moment.
 */
export async function converge(o: ConvergeOptions): Promise<TierOutcome[]> {
  const now = o.now ?? Date.now;
  const { graph, plan } = o.ctx;
  const root = o.ctx.rootSync.source;
  const order = plan.kustomizations.map((k) => k.key);
  const tiers = new Map<string, Tier>(order.map((key) => [key, { track: newTrack(key), ended: null, readiness: kustomizationReadiness(undefined), revision: null, charts: [], chartWaiting: null, why: null }]));
  const backoff = o.retryBackoff ?? { initialMs: 2000, maxMs: 30_000 };
  const failures: { key: string; message: string; hint: string }[] = [];
  const timedOut: { key: string; message: string }[] = [];
  let first = true;
  const locate = locator(o.ctx);

  const end = (key: string, result: Ended, message: string, cause?: ChartSourceCause) => {
    const t = tiers.get(key)!;
    t.ended = result;
    t.why ??= result === 'timeout' ? 'timed out' : result;
    o.steps.end(tierStepId(key), result, message, cause);
  };

  try {
    for (;;) {
      o.live.check();
      assertNoFight(o.live, root);
      for (const key of order) {
        const t = tiers.get(key)!;
        if (t.ended) continue;
        const node = graph.nodes.get(key)!;
        const live = o.live.kustomizations.get(key);
        const source = sourceReadiness(o.live.sourceOf(live, node.sourceRef));
        t.readiness = kustomizationReadiness(live, { sourceRevision: source.revision ?? undefined, dependencyKeys: graph.deps.get(key) });
        t.revision = t.readiness.revision;
        const deps = graph.deps.get(key) ?? [];
        const parent = node.parent !== null && tiers.has(node.parent) ? node.parent : null;
        const parentTier = parent ? tiers.get(parent)! : null;
        // Only for a missing-CRD failure that answers standup's own request (two lists, not every tick of a wait).
        const waitingCrd = t.readiness.state === 'failed' && t.readiness.diagnosis?.type === 'missing-crd' && t.track.requestedAt !== null && live?.status?.lastHandledReconcileAt === t.track.requestedAt
          ? await crdOnItsWay(o.client, t.readiness.diagnosis, o.knowledge.runtimeCrds)
          : null;
        const notReady = (x: Tier | null) => x !== null && (x.ended === 'failed' || x.ended === 'timeout' || x.ended === 'not-run');
        // A HelmRelease of its health check stuck on its chart source: read that source (only then, with backoff).
        let chartFailure = null;
        let chartWaiting = null;
        if (t.track.startedAt !== null && t.readiness.state !== 'ready') {
          const stuck = releasesWithoutChart(live, source.revision, o.live.helmReleases);
          if (stuck.checking) {
            const read = chartReadDue(t.track, stuck.signature, now(), backoff);
            t.track = read.track;
            if (read.due) t.charts = await readChartVerdicts(o.client, stuck.releases);
            else if (stuck.signature === '') t.charts = [];
            chartFailure = t.charts.find((v) => v.state === 'failed')?.failure ?? null;
            chartWaiting = t.charts.flatMap((v) => (v.state === 'waiting' ? [v.line] : [])).join('; ') || null;
            t.chartWaiting = chartWaiting;
          } else t.track = chartReadDue(t.track, '', now(), backoff).track;
        }
        const depsFailed = [...deps.filter((d) => notReady(tiers.get(d)!)), ...(!live && notReady(parentTier) ? [parent!] : [])];
        const d = decideTier(
          t.track,
          {
            readiness: t.readiness,
            exists: !!live,
            lastHandledReconcileAt: live?.status?.lastHandledReconcileAt,
            lastAttemptedRevision: live?.status?.lastAttemptedRevision,
            sourceRevision: source.revision,
            depsDone: deps.every((x) => isDone(tiers.get(x)!)),
            depsFailed,
            parent,
            parentDone: parentTier === null || isDone(parentTier),
            firstPass: first,
            timeoutMs: timeoutFor(o.timeouts, key),
            crdOnItsWay: waitingCrd,
            chartFailure,
            chartWaiting,
          },
          now(),
          backoff,
        );
        t.track = d.track;
        const id = tierStepId(key);
        if (d.start) o.steps.start(id);
        if (d.request) await requestReconcile({ client: o.client, emit: o.emit, id, signal: o.signal }, ksRef(key), d.request.value);
        if (d.line) o.steps.status(id, t.readiness.state, d.line);
        const out = d.outcome;
        if (!out) continue;
        if (out.type === 'finish') end(key, out.result, out.message);
        else if (out.type === 'block') {
          const why = out.by.map((b) => `${b} ${tiers.get(b)?.why ?? 'did not become Ready'}`).join('; ');
          end(key, 'not-run', `not run, not evaluated: ${why}`);
        } else if (out.type === 'timeout') {
          const message = `not Ready after its timeout (${humanDuration(timeoutFor(o.timeouts, key))}): ${out.line}${await laggards(o, t.readiness)}${outage(o, t.track.startedAt)}`;
          timedOut.push({ key, message: `${key} ${message}` });
          end(key, 'timeout', message);
        } else if (out.suspended) {
          const { namespace, name } = splitKey(key);
          const f = { key, message: `${key} is suspended, so it will never become Ready`, hint: `Resume it (\`flux resume ks ${name} -n ${namespace}\`), or add it to exclude: in tiers.yaml, then \`standup resume\`.` };
          failures.push(f);
          end(key, 'failed', f.message);
        } else if (out.chart) {
          const { message, hint } = explainChartFailure(key, out.chart, locate);
          failures.push({ key, message, hint });
          const at = originOf(o.ctx, out.chart.release);
          t.why = `failed: ${out.chart.release} cannot get its chart`;
          end(key, 'failed', message, { type: 'chart-source', helmRelease: out.chart.release, chartSource: out.chart.chart, stalled: `${out.chart.stalled.kind}/${out.chart.stalled.namespace}/${out.chart.stalled.name}`, reason: out.chart.reason, message: out.chart.message, file: at?.file ?? null, line: at?.line ?? null });
        } else {
          const workloads = t.readiness.diagnosis?.type === 'health-check' ? await describeWorkloads(o.client, t.readiness.diagnosis.objects) : [];
          const liveCrdGroupsNow = t.readiness.diagnosis?.type === 'missing-crd' ? await liveCrdGroups(o.client) : new Set<string>();
          const explained = explainFailure(key, t.readiness, { fallback: o.fallback, knowledge: o.knowledge, liveCrdGroups: liveCrdGroupsNow, workloads });
          const { hint } = explained;
          // What the last look at its HelmReleases' chart sources said (a repository unreachable): the cause under the timeout.
          const message = t.chartWaiting ? `${explained.message}\n  ${t.chartWaiting}` : explained.message;
          failures.push({ key, message, hint });
          end(key, 'failed', message);
        }
      }
      first = false;
      if ([...tiers.values()].every((t) => t.ended)) break;
      // A retry due before the next tick (a stale DependencyNotReady is asked again after 250 ms) is not made to wait.
      const due = Math.min(...[...tiers.values()].filter((t) => !t.ended).flatMap((t) => [t.track.retryAt, t.track.depRetryAt, t.track.chartReadAt]).filter((x): x is number => x !== null));
      await o.live.changed(Math.max(10, Math.min(o.tickMs ?? 1000, due - now())));
    }
  } catch (e) {
    // Interrupted, --timeout, the API gone for good: each tier's step ends with what the cluster says now.
    const result = resultOf(e);
    for (const [key, t] of tiers) {
      if (t.ended) continue;
      const id = tierStepId(key);
      if (t.readiness.state === 'ready') end(key, o.steps.started(id) ? 'ok' : 'skipped', `Ready at ${t.revision ?? 'the current revision'}`);
      else if (o.steps.started(id)) {
        t.ended = 'failed';
        o.steps.end(id, result === 'failed' ? 'stopped' : result, o.steps.lastLine(id) || t.readiness.message);
      } else end(key, 'not-run', 'not started: what it depends on was not Ready yet');
    }
    throw e;
  }
  const outcomes = order.map((key) => ({ key, result: tiers.get(key)!.ended!, revision: tiers.get(key)!.revision }));
  if (failures.length > 0) {
    const [f, ...more] = failures;
    const also = more.length ? `\n  also failed: ${more.map((x) => x.key).join(', ')}` : '';
    const stuck = timedOut.length ? `\n  timed out: ${timedOut.map((x) => x.key).join(', ')}` : '';
    throw new TierFailedError(f!.key, `${f!.message}${also}${stuck}`, f!.hint);
  }
  if (timedOut.length > 0) {
    throw new WaitTimeoutError(timedOut.map((x) => x.message).join('\n'), timedOut.map((x) => x.key));
  }
  return outcomes;
}

const isDone = (t: Tier): boolean => t.ended === 'ok' || t.ended === 'skipped';

async function laggards(o: ConvergeOptions, r: Readiness): Promise<string> {
  const d = r.diagnosis;
  if (d?.type !== 'health-check') return '';
  return `; objects still in progress: ${d.objects.map((x) => x.object).join(', ')}${workloadLines(await describeWorkloads(o.client, d.objects))}`;
}

function outage(o: ConvergeOptions, since: number | null): string {
  const p = o.outages?.phrase(since ?? 0);
  return p ? `; ${p}` : '';
}

/** The repository origin of an object of the run's model (`Kind/ns/name`), for messages that say what to edit. */
function originOf(ctx: PlanContext, key: string): { file: string; line: number | null } | null {
  const [kind, namespace, ...rest] = key.split('/');
  const name = rest.join('/');
  const o = ctx.cluster.objects.find((x) => x.kind === kind && x.name === name && (x.namespace === namespace || x.namespace === null));
  return o ? o.origin : null;
}

function locator(ctx: PlanContext): Locate {
  return (k) => {
    const at = originOf(ctx, `${k.kind}/${k.namespace}/${k.name}`);
    return at ? `${at.file}${at.line !== null ? `:${at.line}` : ''}` : null;
  };
}

const ksRef = (key: string) => ({ ...FLUX_KUSTOMIZATION, ...splitKey(key) });
