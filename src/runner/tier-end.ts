// How a tier ends once its decision is made: the step's result and the message that says why, with what the watches
// show of the workloads a health check waited on, the cluster's CRD groups, the HelmRelease's place in the repository.

import type { FluxKustomization } from '../model/flux.js';
import type { PlanContext } from '../plan/plan.js';
import { humanDuration } from '../status/durations.js';

import type { Readiness } from '../status/kustomization.js';
import type { StepCause } from './events.js';
import { explainChartFailure, explainFailure, exprLines, workloadLines, type Locate } from './explain.js';
import type { LiveState } from './live-state.js';
import type { OutageLog } from './outages.js';
import type { CrdKnowledge, FallbackCrd, ImageLocator } from './run-target.js';
import { liveCrdGroups } from './runtime-crd-wait.js';
import type { TierOutcome, TierTrack } from './tier-decision.js';
import { describeWorkloads, watchedWorkloads } from './workloads.js';
import { healthExprsFromWatches } from './health-explain.js';
import { parseRef, refKey, type NamespacedRef } from '../model/ref.js';

/** How a tier's step ends. */
export type TierEndResult = 'ok' | 'skipped' | 'failed' | 'timeout' | 'not-run';

export interface TierEnd {
  result: TierEndResult;
  /** How it ended in a few words, for the tiers it keeps from running (default: the result). */
  why?: string;
  /** Its end message (and, for a failure, the next step), from what the watches show now. */
  finish(): Promise<{ message: string; hint?: string; cause?: StepCause }>;
}

export interface TierEndContext {
  readiness: Readiness;
  track: TierTrack;
  /** What the last look at its HelmReleases' chart sources said of those still waiting for one. */
  chartWaiting: string | null;
  /** How another tier ended, in a few words (null: it has not). */
  why: (key: string) => string | null;
  ctx: PlanContext;
  live: LiveState;
  timeoutMs: number;
  fallback: readonly FallbackCrd[];
  knowledge: CrdKnowledge;
  outages?: OutageLog;
  locateImage?: ImageLocator;
}

/** The end of a tier for a decided outcome; undefined while a watch its message needs is still listing. */
export function tierEnd(node: FluxKustomization, outcome: TierOutcome, x: TierEndContext): TierEnd | undefined {
  const done = (result: TierEndResult, message: string): TierEnd => ({ result, finish: async () => ({ message }) });
  const look = x.live.watched.bind(x.live);
  const d = x.readiness.diagnosis;
  switch (outcome.type) {
    case 'finish':
      return done(outcome.result, outcome.message);
    case 'block':
      return done('not-run', `not run, not evaluated: ${outcome.by.map((b) => `${b} ${x.why(b) ?? 'did not become Ready'}`).join('; ')}`);
    case 'timeout': {
      const workloads = d?.type === 'health-check' ? watchedWorkloads(d.objects, look, x.live.helmReleases) : null;
      const exprs = healthExprsFromWatches(x.live.kustomizations.get(node.key), x.readiness, look);
      if (workloads === undefined || exprs === undefined) return undefined;
      return {
        result: 'timeout',
        finish: async () => {
          const laggards = d?.type === 'health-check' && workloads
            ? `; objects still in progress: ${d.objects.map((o) => o.object).join(', ')}${workloadLines(await describeWorkloads(workloads, d.objects))}`
            : '';
          const p = x.outages?.phrase(x.track.startedAt ?? 0);
          return { message: `not Ready after its timeout (${humanDuration(x.timeoutMs)}): ${outcome.line}${laggards}${exprLines(exprs.filter((l) => !outcome.line.includes(l)))}${p ? `; ${p}` : ''}` };
        },
      };
    }
    case 'fail': {
      if (outcome.suspended) {
        return {
          result: 'failed',
          finish: async () => ({
            message: `${node.key} is suspended, so it will never become Ready`,
            hint: `Resume it (\`flux resume ks ${node.name} -n ${node.namespace}\`), or add it to exclude: in tiers.yaml, then \`standup resume\`.`,
          }),
        };
      }
      const w = outcome.workload;
      if (w) {
        return {
          result: 'failed',
          why: `failed: ${w.object} cannot pull its image`,
          finish: async () => {
            const ref = parseRef(w.object);
            const c = w.problemAt;
            const object = ref?.namespace ? originOf(x.ctx, { ...ref, namespace: ref.namespace }) : null;
            // The image's own line when it can be found in the object's document; else the object's.
            const at = (object && c?.image ? x.locateImage?.(object, c.container, c.image) : null) ?? object;
            const where = at ? ` (${at.file}${at.line !== null ? `:${at.line}` : ''})` : ' (not in this repository: a chart or another source makes it)';
            return {
              message: `${node.key} cannot become healthy: ${w.object} ${w.line}`,
              hint: `Fix the image${c?.container ? ` of container ${c.container}` : ''} in ${w.object}${where}${c?.image ? `: ${c.image} ${w.problem === 'image-invalid' ? 'cannot be pulled as written' : ''}` : ''}; push, then \`standup resume\`.`.replace(' ;', ';'),
            };
          },
        };
      }
      const chart = outcome.chart;
      if (chart) {
        return {
          result: 'failed',
          why: `failed: ${refKey(chart.release)} cannot get its chart`,
          finish: async () => {
            const { message, hint } = explainChartFailure(node.key, chart, locator(x.ctx));
            const at = originOf(x.ctx, chart.release);
            const cause: StepCause = { type: 'chart-source', helmRelease: refKey(chart.release), chartSource: refKey(chart.chart), stalled: refKey(chart.stalled), reason: chart.reason, message: chart.message, file: at?.file ?? null, line: at?.line ?? null };
            return { message, hint, cause };
          },
        };
      }
      const workloads = d?.type === 'health-check' ? watchedWorkloads(d.objects, look, x.live.helmReleases) : null;
      const groups = d?.type === 'missing-crd' ? liveCrdGroups(look) : new Set<string>();
      const exprs = healthExprsFromWatches(x.live.kustomizations.get(node.key), x.readiness, look);
      if (workloads === undefined || groups === undefined || exprs === undefined) return undefined;
      return {
        result: 'failed',
        finish: async () => {
          const reports = d?.type === 'health-check' && workloads ? await describeWorkloads(workloads, d.objects) : [];
          const explained = explainFailure(node, x.readiness, { fallback: x.fallback, knowledge: x.knowledge, liveCrdGroups: groups, workloads: reports, healthExprs: exprs });
          // What the last look at its HelmReleases' chart sources said (a repository unreachable): the cause under the timeout.
          return { message: x.chartWaiting ? `${explained.message}\n  ${x.chartWaiting}` : explained.message, hint: explained.hint };
        },
      };
    }
  }
}

/** The repository origin of an object of the run's model, for messages that say what to edit. */
function originOf(ctx: PlanContext, k: NamespacedRef): { file: string; line: number | null } | null {
  const o = ctx.cluster.objects.find((x) => x.kind === k.kind && x.name === k.name && (x.namespace === k.namespace || x.namespace === null));
  return o ? o.origin : null;
}

function locator(ctx: PlanContext): Locate {
  return (k) => {
    const at = originOf(ctx, k);
    return at ? `${at.file}${at.line !== null ? `:${at.line}` : ''}` : null;
  };
}
