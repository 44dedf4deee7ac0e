import type { Problem } from '../model/problem.js';
import { blockingProblems } from './blocking.js';
import { NotConvergeableError } from './errors.js';
import type { Emit } from './events.js';
import type { RunTarget } from './run-target.js';
import type { StepOutcome } from './steps.js';

/**
 * The `check` step: the static problems that decide convergence, before any write. Refused unless --force: the
 * problems go out as an event (stderr lists them as `check` does) and the step fails; with --force each is logged as
 * ignored.
 */
export function checkGraph(t: RunTarget, force: boolean, emit: Emit): StepOutcome {
  const blocking = blockingProblems(t.problems, t.name, t.fallback.crds);
  if (blocking.length === 0) return { result: 'ok', message: `${t.ctx.plan.kustomizations.length} Kustomizations, ${t.ctx.levels.levels.length} levels; nothing keeps them from converging` };
  if (!force) {
    emit({ type: 'problems', problems: blocking });
    throw new NotConvergeableError(blocking.length, blocking.map((p) => p.code));
  }
  for (const p of blocking) emit({ type: 'log', level: 'warn', message: `--force: ignoring ${where(p)}: ${p.message}` });
  return { result: 'ok', message: `${blocking.length} problem${blocking.length === 1 ? '' : 's'} that keep it from converging ignored (--force)` };
}

const where = (p: Problem) => (p.file ? `${p.file}${p.line ? `:${p.line}` : ''}` : p.object ?? 'the repository');
