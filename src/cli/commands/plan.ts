import { renderPlanText } from '../../ui/plan-text.js';
import { ExitCode } from '../../model/errors.js';
import type { Io } from '../io.js';
import { isExpanded } from '../../model/flux.js';
import { loadAndPlan, noteNotExpanded, warnLoadProblems } from '../load.js';
import { outputFormat, type GlobalOptions } from '../options.js';

/** `standup plan`: TIER_ORDER per cluster, as numbered levels. */
export async function plan(o: GlobalOptions, io: Io): Promise<number> {
  const format = outputFormat(o.output, ['text', 'json'] as const, 'text');
  const { repo, contexts } = await loadAndPlan(o, io, undefined, 'graph');
  const plans = contexts.map((c) => c.plan);
  if (format === 'json') {
    // `expanded`: whether what the Kustomization applies is in the graph (false: see `standup check` for why).
    const json = contexts.map(({ plan: p, cluster }) => {
      const byKey = new Map(cluster.kustomizations.map((k) => [k.key, k]));
      return { ...p, kustomizations: p.kustomizations.map((k) => ({ ...k, expanded: isExpanded(byKey.get(k.key) ?? {}) })) };
    });
    io.out(JSON.stringify({ clusters: json }, null, 2) + '\n');
  } else {
    io.out(renderPlanText(plans, io.style));
  }
  warnLoadProblems(repo.problems, contexts.length, io);
  noteNotExpanded(repo.clusters, io);
  return ExitCode.ok;
}
