// What to do after a run that stopped (Ctrl-C, a closed output, --timeout, a step's own wait), by where it stopped.
// The advice is a table, so every command's every stop point has one answer and a test reads them all: following it
// never undoes what the run did (after `reset --up` tore the cluster down, `standup reset` again would tear down the
// half it stood up; `resume` finishes it).

import { CliError } from '../model/errors.js';
import { InterruptedError, RunTimeoutError, tierFailedError, type TierFailure } from './errors.js';
import type { Change } from './change.js';
import type { StepId, StepReport } from './events.js';
import { parseStepId } from './step-id.js';

/** The commands a run can be. */
export type RunCommand = 'up' | 'resume' | 'crds' | 'reset' | 'reset --up';

/** Where a run stopped: before it wrote anything, in reset's teardown, in standing the cluster up, in `crds`' apply. */
export type StopPhase = 'nothing-written' | 'teardown' | 'stand-up' | 'crds';

/** How it stopped: Ctrl-C (or a closed output), or a deadline. */
export type StopHow = 'interrupted' | 'timeout';

const AGAIN_LONGER = 'with a longer --timeout (or none)';
const RESUME_TIMEOUT = `Run \`standup resume\` to continue from the first unready tier (with a longer --timeout, or none); \`standup status\` shows where each tier stands.`;

/** Every stop point's advice. A command missing from a phase cannot stop there. */
export const ADVICE: Record<StopPhase, Partial<Record<RunCommand, Record<StopHow, string>>>> = {
  'nothing-written': Object.fromEntries((['up', 'resume', 'crds', 'reset', 'reset --up'] as const).map((c) => [c, {
    interrupted: `Nothing was written; run \`standup ${c}\` again.`,
    timeout: `Nothing was written; run \`standup ${c}\` again ${AGAIN_LONGER}.`,
  }])),
  teardown: {
    reset: {
      interrupted: 'Run `standup reset` again to finish the teardown, or `standup up` to stand the cluster up again.',
      timeout: 'Run `standup reset` again once what it was deleting is gone (`kubectl get ks -A`), or `standup up` to stand the cluster up again.',
    },
    'reset --up': {
      interrupted: 'Run `standup reset --up` again to finish the teardown and stand the cluster up, or `standup up` to stand it up without finishing the teardown.',
      timeout: 'Run `standup reset --up` again once what it was deleting is gone (`kubectl get ks -A`), or `standup up` to stand the cluster up without finishing the teardown.',
    },
  },
  'stand-up': {
    up: { interrupted: 'Run `standup resume` to finish the job from where it stopped.', timeout: RESUME_TIMEOUT },
    resume: { interrupted: 'Run `standup resume` again to finish the job from where it stopped.', timeout: RESUME_TIMEOUT },
    'reset --up': {
      interrupted: 'The teardown is done: run `standup resume` to finish standing the cluster up (`standup reset` would tear it down again).',
      timeout: `The teardown is done: ${RESUME_TIMEOUT.replace('Run', 'run')} (\`standup reset\` would tear it down again).`,
    },
  },
  crds: {
    crds: {
      interrupted: 'Run `standup crds` again: what is already applied stays unchanged.',
      timeout: `Run \`standup crds\` again ${AGAIN_LONGER}; \`kubectl get crd\` shows which are Established.`,
    },
  },
};

/** The phase a step belongs to, in a command. */
export function phaseOf(command: RunCommand, id: StepId): StopPhase {
  const p = parseStepId(id);
  if (p.kind === 'delete') return 'teardown';
  if (p.kind !== 'fixed') return 'stand-up';
  switch (p.id) {
    case 'check':
    case 'preflight':
      return 'nothing-written';
    case 'suspend':
    case 'namespaces':
      return 'teardown';
    case 'crds':
      return command === 'crds' ? 'crds' : 'stand-up';
    default:
      return 'stand-up';
  }
}

/**
 * Where a stopped run stopped, from its steps in plan order as run-end carries them: the step the stop cut short, or
 * (stopped between two steps) the next one; a next step of a new phase that never started leaves the run in the
 * phase of the last step that ended.
 */
export function stopPhase(command: RunCommand, steps: readonly (Pick<StepReport, 'id' | 'result' | 'startedAt'> & Partial<Pick<StepReport, 'changes'>>)[]): StopPhase {
  const phase = stepPhase(command, steps);
  // Stopped in a writing step before its first write (Ctrl-C as the install began, say): nothing was written, and the
  // command again is what finishes the job (resume could not know what up was not told yet, a --source-url).
  // A step's writes are all reported before a Ctrl-C ends it (an apply is never cut in half), so the changes tell.
  if (phase !== 'nothing-written' && steps.every((s) => s.changes !== undefined) && !steps.some((s) => s.changes!.some((c) => wrote(c.change)))) return 'nothing-written';
  return phase;
}

/** A change that wrote to the cluster (not an apply the server found unchanged, nor a delete of what was gone). */
const wrote = (c: Change): boolean => !(c.kind === 'apply' && c.action === 'unchanged') && !(c.kind === 'delete' && !c.existed);

function stepPhase(command: RunCommand, steps: readonly Pick<StepReport, 'id' | 'result' | 'startedAt'>[]): StopPhase {
  const cut = steps.find((s) => s.result === 'interrupted' || s.result === 'timeout' || s.result === 'stopped');
  if (cut) return phaseOf(command, cut.id);
  const lastEnded = steps.findLastIndex((s) => s.startedAt !== null);
  const next = steps[lastEnded + 1];
  if (lastEnded < 0) return 'nothing-written';
  const last = phaseOf(command, steps[lastEnded]!.id);
  if (!next) return last;
  // Between two steps: the teardown finished and the stand-up not begun is still "the teardown is done".
  return last === 'nothing-written' ? 'nothing-written' : phaseOf(command, next.id);
}

/** What to do next after a run that stopped at `phase`. */
export function adviceFor(command: RunCommand, phase: StopPhase, how: StopHow, dryRun: boolean): string {
  if (dryRun) return `Nothing was written (--dry-run); run \`standup ${command} --dry-run\` again to see the rest.`;
  return ADVICE[phase][command]?.[how] ?? ADVICE['nothing-written'][command]![how];
}

/**
 * The error a stopped run ends with: Ctrl-C or --timeout get the advice for where the run stopped, and any tier that
 * had already failed is named with its reason. A terminal failure outranks the timeout that ran out after it (exit 1:
 * waiting longer would not help); an interrupt stays one (exit 130: the operator asked for it).
 */
export function stoppedRunError(error: unknown, o: { command: RunCommand; dryRun: boolean; steps: readonly StepReport[]; failed: readonly TierFailure[] }): unknown {
  const how: StopHow | null = error instanceof InterruptedError ? 'interrupted' : error instanceof RunTimeoutError ? 'timeout' : null;
  if (!how || !(error instanceof CliError)) return error;
  const hint = adviceFor(o.command, stopPhase(o.command, o.steps), how, o.dryRun);
  if (o.failed.length > 0 && how === 'timeout') return tierFailedError(o.failed, `and then ${error.message}`);
  const failed = o.failed.length > 0 ? tierFailedError(o.failed) : null;
  const message = failed ? `${error.message}; before that, ${failed.message}` : error.message;
  const advice = failed ? `${failed.hint}\n${hint}` : hint;
  return how === 'timeout' ? new RunTimeoutError(message, advice) : new CliError('INTERRUPTED', message, { hint: advice });
}
