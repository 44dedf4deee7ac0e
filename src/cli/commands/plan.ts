import { renderPlanText } from '../../ui/plan-text.js';
import { renderProblemsText } from '../../ui/problems-text.js';
import { ExitCode } from '../../model/errors.js';
import { cycleRule } from '../../lint/rules/cycle.js';
import type { Io } from '../io.js';
import { loadAndPlan, warnLoadProblems } from '../load.js';
import { outputFormat, type GlobalOptions } from '../options.js';

/**
 * `standup plan`: TIER_ORDER per cluster, as numbered levels. A cluster with no order (a dependsOn cycle, or an entry
 * that does not build) gets none printed: its problems go to stderr and plan exits 2.
 */
export async function plan(o: GlobalOptions, io: Io): Promise<number> {
  const format = outputFormat(o.output, ['text', 'json'] as const, 'text');
  const { repo, contexts } = await loadAndPlan(o, io, undefined, 'graph');
  const unordered = [
    ...cycleRule.check({ clusters: contexts, config: repo.config }),
    ...repo.problems.filter((p) => p.code === 'build-failed' && p.severity === 'error' && contexts.some((c) => c.cluster.name === p.cluster && c.cluster.entry === p.file)),
  ];
  if (unordered.length > 0) {
    io.err(renderProblemsText(unordered, contexts.length, io.errStyle));
    io.err(io.errStyle.red(`✗ no TIER_ORDER: ${[...new Set(unordered.map((p) => p.cluster))].join(', ')} cannot be ordered until these are fixed\n`));
    return ExitCode.config;
  }
  const plans = contexts.map((c) => c.plan);
  io.out(format === 'json' ? JSON.stringify({ clusters: plans }, null, 2) + '\n' : renderPlanText(plans, io.style));
  warnLoadProblems(repo.problems, contexts.length, io);
  return ExitCode.ok;
}
