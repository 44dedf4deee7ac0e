// A run as data: the parts a command runs, in order, built once per command (run.ts for up, resume and crds,
// reset.ts for reset). The `plan` event lists their steps and lifecycle.ts runs them, so what a command shows and
// what it does cannot drift apart.

import type { RunCommand } from './advice.js';
import type { StepInfo } from './events.js';
import type { RunScope, RunSummary } from './lifecycle.js';
import type { StepOutcome } from './steps.js';

export type RunPart =
  /** One step, started and ended around its action. */
  | { kind: 'step'; step: StepInfo; run: (s: RunScope) => Promise<StepOutcome> }
  /** Steps one action drives itself: the source and every tier, waited on together on the same watches. */
  | { kind: 'steps'; steps: StepInfo[]; run: (s: RunScope) => Promise<void> }
  /** A check between steps that refuses the run without being a step of its own. */
  | { kind: 'gate'; run: (s: RunScope) => Promise<void> };

export interface RunPlan {
  cluster: string;
  command: RunCommand;
  dryRun: boolean;
  parts: RunPart[];
  /** The run-end message, once every part has run. */
  done: (summary: RunSummary) => string;
}

export const step = (info: StepInfo, run: (s: RunScope) => Promise<StepOutcome>): RunPart => ({ kind: 'step', step: info, run });
export const stepGroup = (steps: StepInfo[], run: (s: RunScope) => Promise<void>): RunPart => ({ kind: 'steps', steps, run });
export const gate = (run: (s: RunScope) => Promise<void>): RunPart => ({ kind: 'gate', run });

/** The steps of a plan, in order: what the `plan` event shows. */
export const stepsOf = (parts: readonly RunPart[]): StepInfo[] =>
  parts.flatMap((p) => (p.kind === 'step' ? [p.step] : p.kind === 'steps' ? p.steps : []));

/** Runs the parts in order; the first throw ends the run. */
export async function runParts(parts: readonly RunPart[], s: RunScope): Promise<void> {
  for (const p of parts) {
    if (p.kind === 'step') await s.steps.run(p.step.id, () => p.run(s));
    else await p.run(s);
  }
}
