/** What a run is made of, in order. A tier step is one Flux Kustomization (`tier:<namespace/name>`). */
export type StepKind = 'preflight' | 'bootstrap' | 'crds' | 'source' | 'tier' | 'teardown';

export interface StepInfo {
  id: string;
  kind: StepKind;
  title: string;
  /** For tiers: the dependsOn level (tiers of one level are waited on together). */
  level?: number;
  /** For tiers: the keys this one depends on. */
  dependsOn?: string[];
}

export type StepResult = 'ok' | 'skipped' | 'failed';

/**
 * The runner's only output: reporters (listr2, plain lines, JSON) consume these and never see the cluster.
 * `-o json` prints each as one line, so the shapes are a contract: add fields, never rename.
 */
export type RunEvent =
  | { type: 'plan'; cluster: string; command: string; steps: StepInfo[]; dryRun: boolean }
  | { type: 'step-start'; id: string; at: string }
  /** A new status line for a running step (Flux's own words where possible). */
  | { type: 'step-status'; id: string; state: string; message: string }
  | { type: 'step-end'; id: string; result: StepResult; durationMs: number; message: string }
  /** Something was (or, with --dry-run, would be) written: an apply result or an annotation. */
  | { type: 'change'; id: string; object: string; action: string; dryRun: boolean }
  | { type: 'log'; level: 'info' | 'warn'; message: string }
  | {
      type: 'run-end';
      ok: boolean;
      exitCode: number;
      durationMs: number;
      message: string;
      hint?: string;
      /**
       * API traffic of the run: plain requests, watch connections, relists after 410 Gone, and requests per minute;
       * `waiting` is the same for the tier steps alone (first tier start to last tier end), when there were any.
       */
      api?: ApiTraffic & { relists: number; waiting?: ApiTraffic & { ms: number } };
    };

export interface ApiTraffic {
  requests: number;
  watches: number;
  perMinute: number;
}

export type Emit = (e: RunEvent) => void;

export const tierStepId = (key: string): string => `tier:${key}`;
