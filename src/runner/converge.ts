import { FLUX_KUSTOMIZATION, type ClusterClient } from '../cluster/client.js';
import type { PlanContext } from '../plan/plan.js';
import type { LiveKustomization } from '../status/conditions.js';
import { kustomizationReadiness, type Readiness } from '../status/kustomization.js';
import { sourceReadiness } from '../status/source.js';
import { shortRevision } from '../status/revision.js';
import { splitKey } from '../model/ref.js';
import { InterruptedError, TierFailedError, WaitTimeoutError } from './errors.js';
import { requestReconcile } from './request-reconcile.js';
import { tierStepId, type Emit } from './events.js';
import { explainFailure, statusLine, type FallbackCrd } from './explain.js';
import type { LiveState } from './live-state.js';
import { describeUnhealthy, withDetails } from './unhealthy.js';
import { crdOnItsWay, type RuntimeCrdDecl } from './runtime-crd-wait.js';

export interface ConvergeOptions {
  ctx: PlanContext;
  client: ClusterClient;
  live: LiveState;
  emit: Emit;
  signal: AbortSignal;
  /** Per-tier timeout in ms, counted from the moment the tier's dependencies are ready. */
  timeoutFor: (key: string) => number;
  fallback: readonly FallbackCrd[];
  dryRun?: boolean;
  now?: () => number;
  /** Upper bound between two looks at the state when nothing changes (timers, logs). */
  tickMs?: number;
  /** Backoff between reconcile requests after transient failures: 2 s doubling to 30 s by default. */
  retryBackoff?: { initialMs: number; maxMs: number };
  /** tiers.yaml runtimeCrds: a missing kind whose operator already has its trigger is waited for, not a deadlock. */
  runtimeCrds?: readonly RuntimeCrdDecl[];
}

export interface TierOutcome {
  key: string;
  result: 'ok' | 'skipped';
  durationMs: number;
  revision: string | null;
}

interface Track {
  key: string;
  startedAt: number | null;
  requestedAt: string | null;
  lastLine: string;
  readiness: Readiness;
  done: boolean;
  /** A terminal failure earns one more reconcile request before standup gives up (see below). */
  secondChance: boolean;
  /** Reconcile requests made after transient failures, and when the next one is due. */
  retries: number;
  retryAt: number | null;
}

/**
 * Waits until every Kustomization of the plan is Ready at its source's current revision, requesting a reconcile of
 * each the moment its dependencies are ready, so none waits out kustomize-controller's --requeue-dependency.
 * Independent tiers progress together (a frontier, not level by level). Fails fast on a terminal Ready=False that
 * belongs to the current revision (and to standup's own reconcile request, when it made one).
 */
export async function converge(o: ConvergeOptions): Promise<TierOutcome[]> {
  const now = o.now ?? Date.now;
  const { graph, plan } = o.ctx;
  const order = plan.kustomizations.map((k) => k.key);
  const tracks = new Map<string, Track>(order.map((key) => [key, { key, startedAt: null, requestedAt: null, lastLine: '', readiness: kustomizationReadiness(undefined), done: false, secondChance: false, retries: 0, retryAt: null }]));
  const backoff = o.retryBackoff ?? { initialMs: 2000, maxMs: 30_000 };
  const outcomes: TierOutcome[] = [];
  let first = true;

  for (;;) {
    if (o.signal.aborted) throw new InterruptedError();
    o.live.check();
    for (const key of order) {
      const t = tracks.get(key)!;
      if (t.done) continue;
      const node = graph.nodes.get(key)!;
      const live = o.live.kustomizations.get(key);
      const source = sourceReadiness(o.live.sourceOf(live, node.sourceRef));
      const r = kustomizationReadiness(live, { sourceRevision: source.revision ?? undefined, dependencyKeys: graph.deps.get(key) });
      t.readiness = r;
      const depsDone = (graph.deps.get(key) ?? []).every((d) => tracks.get(d)!.done);
      const parentDone = node.parent === null || !tracks.has(node.parent) || tracks.get(node.parent)!.done;

      if (r.state === 'ready') {
        t.done = true;
        const skipped = first && t.startedAt === null;
        const durationMs = t.startedAt === null ? 0 : now() - t.startedAt;
        if (!skipped && t.startedAt === null) o.emit({ type: 'step-start', id: tierStepId(key), at: new Date(now()).toISOString() });
        o.emit({ type: 'step-end', id: tierStepId(key), result: skipped ? 'skipped' : 'ok', durationMs,
          message: skipped ? `already Ready at ${shortRevision(r.revision)}` : `Ready at ${shortRevision(r.revision)}` });
        outcomes.push({ key, result: skipped ? 'skipped' : 'ok', durationMs, revision: r.revision });
        continue;
      }
      if (!depsDone || (!live && !parentDone)) continue;

      if (t.startedAt === null) {
        t.startedAt = now();
        o.emit({ type: 'step-start', id: tierStepId(key), at: new Date(t.startedAt).toISOString() });
      }
      if (r.state === 'suspended') {
        throw new TierFailedError(key, `${key} is suspended, so it will never become Ready`,
          `Resume it (\`flux resume ks ${splitKey(key).name} -n ${splitKey(key).namespace}\`), or add it to exclude: in tiers.yaml, then \`standup resume\`.`);
      }
      if (live && t.requestedAt === null) {
        t.requestedAt = await requestReconcile({ ...o, id: tierStepId(key), now }, ksRef(key));
      }
      if (r.state === 'failed' && r.diagnosis?.type === 'missing-crd' && failureIsCurrent(live, t.requestedAt, source.revision) && !o.dryRun) {
        const waiting = await crdOnItsWay(o.client, r.diagnosis, o.runtimeCrds ?? []);
        if (waiting) {
          t.retryAt ??= now() + Math.min(backoff.maxMs, backoff.initialMs * 2 ** t.retries);
          if (now() >= t.retryAt) {
            t.retries++;
            t.retryAt = null;
            o.emit({ type: 'step-status', id: tierStepId(key), state: 'progressing', message: `${waiting}; asking Flux again (${t.retries})` });
            t.requestedAt = await requestReconcile({ ...o, id: tierStepId(key), now }, ksRef(key));
          } else if (waiting !== t.lastLine) {
            t.lastLine = waiting;
            o.emit({ type: 'step-status', id: tierStepId(key), state: 'progressing', message: waiting });
          }
          if (now() - t.startedAt > o.timeoutFor(key)) throw timeout(key, t, tracks, []);
          continue;
        }
      }
      if (r.state === 'failed' && failureIsCurrent(live, t.requestedAt, source.revision) && !t.secondChance && !o.dryRun) {
        // One more reconcile before failing: a cold start meets one-off failures (a controller's temp dir gone, a
        // webhook not serving yet) that Flux would only retry after retryInterval. A real failure repeats at once.
        t.secondChance = true;
        o.emit({ type: 'step-status', id: tierStepId(key), state: 'failed', message: `${statusLine(r)}; asking Flux once more` });
        t.requestedAt = await requestReconcile({ ...o, id: tierStepId(key), now }, ksRef(key));
        continue;
      }
      if (r.state === 'progressing' && r.reason === 'ReconciliationFailed' && failureIsCurrent(live, t.requestedAt, source.revision) && !o.dryRun) {
        // Transient API trouble (the API server restarting, a webhook without endpoints yet): Flux would try again
        // only after retryInterval (often minutes). Ask again sooner, backing off.
        t.retryAt ??= now() + Math.min(backoff.maxMs, backoff.initialMs * 2 ** t.retries);
        if (now() >= t.retryAt) {
          t.retries++;
          t.retryAt = null;
          o.emit({ type: 'step-status', id: tierStepId(key), state: r.state, message: `${statusLine(r)}; asking Flux again (${t.retries})` });
          t.requestedAt = await requestReconcile({ ...o, id: tierStepId(key), now }, ksRef(key));
          continue;
        }
      }
      if (r.state === 'failed' && failureIsCurrent(live, t.requestedAt, source.revision)) {
        const explained = explainFailure(key, r, o.fallback);
        const message = withDetails(explained.message, await describeUnhealthy(o.client, r.diagnosis));
        const hint = explained.hint;
        o.emit({ type: 'step-end', id: tierStepId(key), result: 'failed', durationMs: now() - t.startedAt, message });
        throw new TierFailedError(key, message, hint);
      }
      const line = live || !node.parent ? statusLine(r) : `not applied yet (${node.parent} applies it)`;
      if (line !== t.lastLine) {
        t.lastLine = line;
        o.emit({ type: 'step-status', id: tierStepId(key), state: r.state, message: line });
      }
      if (now() - t.startedAt > o.timeoutFor(key)) throw timeout(key, t, tracks, await describeUnhealthy(o.client, t.readiness.diagnosis));
    }
    first = false;
    if ([...tracks.values()].every((t) => t.done)) return outcomes;
    if (o.dryRun) return outcomes;
    await o.live.changed(o.tickMs ?? 1000);
  }
}

/**
 * A Ready=False counts only when it speaks for now: KC has handled standup's reconcile request (if any), and it
 * attempted the source's current revision. A failure left over from before a fix (say, before `standup crds`) is not.
 */
function failureIsCurrent(live: LiveKustomization | undefined, requestedAt: string | null, sourceRevision: string | null): boolean {
  if (!live) return false;
  if (requestedAt !== null && live.status?.lastHandledReconcileAt !== requestedAt) return false;
  const attempted = live.status?.lastAttemptedRevision;
  return !(sourceRevision && attempted && attempted !== sourceRevision);
}

function timeout(key: string, t: Track, tracks: Map<string, Track>, details: string[]): WaitTimeoutError {
  const pending = [...tracks.values()].filter((x) => !x.done && x.startedAt !== null).map((x) => `${x.key}: ${statusLine(x.readiness)}`);
  const d = t.readiness.diagnosis;
  const laggards = d?.type === 'health-check' ? `; objects still in progress: ${d.objects.map((x) => x.object).join(', ')}` : '';
  return new WaitTimeoutError(withDetails(`${key} is not Ready after its timeout (${statusLine(t.readiness)})${laggards}.\n  pending: ${pending.join('\n           ')}`, details), pending);
}

const ksRef = (key: string) => ({ ...FLUX_KUSTOMIZATION, ...splitKey(key) });
