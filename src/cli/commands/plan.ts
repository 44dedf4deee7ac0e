import { renderPlanText } from '../../ui/plan-text.js';
import { ExitCode } from '../../model/errors.js';
import type { Io } from '../io.js';
import { loadAndPlan, warnLoadProblems } from '../load.js';
import { outputFormat, type GlobalOptions } from '../options.js';

/** `standup plan`: TIER_ORDER per cluster, as numbered levels. */
export async function plan(o: GlobalOptions, io: Io): Promise<number> {
  const format = outputFormat(o.output, ['text', 'json'] as const, 'text');
  const { repo, contexts } = await loadAndPlan(o, io, undefined, 'graph');
  const plans = contexts.map((c) => c.plan);
  io.out(format === 'json' ? JSON.stringify({ clusters: plans }, null, 2) + '\n' : renderPlanText(plans, io.style));
  warnLoadProblems(repo.problems, contexts.length, io);
  return ExitCode.ok;
}
