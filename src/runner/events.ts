import type { Problem } from '../model/problem.js';
import type { ReadinessState } from '../status/kustomization.js';
import type { Change } from './change.js';
import type { StepId } from './step-id.js';

export type { StepId } from './step-id.js';

/** What a run is made of, in order. A tier step is one Flux Kustomization (`tier:<namespace/name>`). */
export type StepKind = 'check' | 'preflight' | 'install' | 'bootstrap' | 'crds' | 'source' | 'tier' | 'resourceset' | 'teardown';

export interface StepInfo {
  id: StepId;
  kind: StepKind;
  title: string;
  /** For tiers: the dependsOn level (tiers of one level are waited on together). */
  level?: number;
  /** For tiers: the keys this one depends on. */
  dependsOn?: string[];
}

/**
 * How a step ended. `timeout`: its wait ran out (its own timeout or --timeout); `interrupted`: Ctrl-C came while it
 * ran; `stopped`: still converging when another step's failure ended the run; `not-run`: never started (what it
 * waits on failed, or the run ended first).
 */
export type StepResult = 'ok' | 'skipped' | 'failed' | 'timeout' | 'interrupted' | 'stopped' | 'not-run';

/** A running step's state in a status line: the readiness of what it waits on, in Flux's terms. */
export type StepState = ReadinessState;

/** One step as the run ended it: what the summary table and the run record show. */
export interface StepReport {
  id: StepId;
  title: string;
  level: number | null;
  result: StepResult;
  startedAt: string | null;
  durationMs: number | null;
  /** Its end message (its last status line while it ran; '' when it never started). */
  message: string;
  changes: { object: string; change: Change }[];
}

/**
 * The runner's only output, from the `plan` event to `run-end`: reporters (the live view, plain lines, JSON) consume
 * these and never see the cluster. `-o json` prints each as one line through event-json.ts, so the shapes there are
 * a contract: add fields, never rename.
 */
export type RunEvent =
  | { type: 'plan'; cluster: string; command: string; steps: StepInfo[]; dryRun: boolean }
  | { type: 'step-start'; id: StepId; at: string }
  /** A new status line for a running step (Flux's own words where possible). */
  | { type: 'step-status'; id: StepId; state: StepState; message: string }
  | {
      type: 'step-end';
      id: StepId;
      result: StepResult;
      durationMs: number;
      message: string;
      /** Why it failed, as fields, when standup traced the failure past the Kustomization. */
      cause?: StepCause;
    }
  /** Something was (or, with --dry-run, would be) written: an apply result, an annotation, a suspend or a delete. */
  | { type: 'change'; id: StepId; object: string; change: Change; dryRun: boolean }
  /** The static problems that keep the cluster from converging, as `check` reports them: the run refuses to write. */
  | { type: 'problems'; problems: readonly Problem[] }
  | { type: 'log'; level: 'info' | 'warn'; message: string }
  | {
      type: 'run-end';
      ok: boolean;
      exitCode: number;
      /** The error's stable code (TIER_FAILED, WAIT_TIMEOUT, INTERRUPTED, ...) when the run failed. */
      code?: string;
      durationMs: number;
      message: string;
      hint?: string;
      /**
       * API traffic of the run: plain requests, watch connections, relists after 410 Gone, and requests per minute;
       * `waiting` is the same for the tier steps alone (first tier start to last tier end), when there were any.
       */
      api?: ApiTraffic & { relists: number; waiting?: ApiTraffic & { ms: number } };
      /** HelmReleases standup asked to reconcile once their dependencies were Ready (when it asked any). */
      helmReleases?: HelmReleaseRequests;
      /** Every step of the plan as it ended, in plan order: what the summary prints. */
      steps: StepReport[];
    };

/**
 * A tier failed because a HelmRelease it waits on can never get its chart: source-controller stalled on its chart
 * source (or on the repository that source builds from) for the release's current spec.
 */
export interface ChartSourceCause {
  type: 'chart-source';
  /** `HelmRelease/ns/name` */
  helmRelease: string;
  /** What helm-controller reads the chart from: `HelmChart/ns/name` (made from spec.chart, or named by spec.chartRef), `OCIRepository/ns/name`. */
  chartSource: string;
  /** The object source-controller stalled on: chartSource, or the HelmRepository (GitRepository, Bucket) it builds from. */
  stalled: string;
  /** source-controller's Stalled reason and message, verbatim. */
  reason: string;
  message: string;
  /** The HelmRelease in the repository, when the run's model has it. */
  file: string | null;
  line: number | null;
}

export type StepCause = ChartSourceCause;

/**
 * HelmReleases helm-controller turned away ("dependency ... is not ready") that standup asked again once its watch saw
 * every dependency Ready: how many releases, how many requests, and how many of them got past the dependency check on
 * standup's request (turn-aways that did not wait out --requeue-dependency) while standup was still watching; a
 * release still in helm-controller's queue when the last tier is Ready is asked but not counted as passed.
 */
export interface HelmReleaseRequests {
  asked: number;
  requests: number;
  passed: number;
  /** Releases asked as soon as helm-controller had added its finalizer, not turned away (see helm-decision.ts). */
  early: number;
}

export interface ApiTraffic {
  requests: number;
  watches: number;
  perMinute: number;
}

export type Emit = (e: RunEvent) => void;

/** For exhaustive switches over event types: the compiler rejects a missing case. */
export function assertNever(x: never): never {
  throw new Error(`unhandled event ${JSON.stringify(x)}`);
}
