import { renderPlanText } from '../../ui/plan-text.js';
import { renderPlanMarkdown } from '../../ui/plan-markdown.js';
import { renderProblemsText } from '../../ui/problems-text.js';
import { cycleRule } from '../../lint/rules/cycle.js';
import { ConfigError, ExitCode } from '../../model/errors.js';
import { closeNames, selectPlan, type SelectedPlan, type Selection } from '../../plan/select.js';
import type { ClusterPlan } from '../../plan/plan.js';
import { implicitDependsOn } from '../../plan/helm-order.js';
import type { Io } from '../io.js';
import { isExpanded } from '../../model/flux.js';
import { loadAndPlan, noteNotExpanded, warnLoadProblems } from '../load.js';
import { isDataFormat, outputFormat, renderDocument, type GlobalOptions } from '../options.js';

export interface PlanOptions extends GlobalOptions {
  namespace?: string;
  allNamespaces?: boolean;
  /** Positional Kustomization names (`name` or `namespace/name`). */
  names?: string[];
}

const FORMATS = ['text', 'json', 'yaml', 'markdown'] as const;

/**
 * `standup plan`: TIER_ORDER per cluster, as numbered levels; `-n` and names narrow it to some Kustomizations. A
 * cluster with no order (a dependsOn cycle, or an entry that does not build) gets none printed: its problems go to
 * stderr and plan exits 2.
 */
export async function plan(o: PlanOptions, io: Io): Promise<number> {
  const format = outputFormat(o.output, FORMATS, 'text');
  const selection = selectionOf(o);
  const { repo, contexts } = await loadAndPlan(o, io, undefined, 'graph', undefined, { helmOrders: isDataFormat(format) });
  const unordered = [
    ...cycleRule.check({ clusters: contexts, config: repo.config }),
    ...repo.problems.filter((p) => p.code === 'build-failed' && p.severity === 'error' && contexts.some((c) => c.cluster.name === p.cluster && c.cluster.entry === p.file)),
  ];
  if (unordered.length > 0) {
    io.err(renderProblemsText(unordered, contexts.length, io.errStyle));
    io.err(io.errStyle.red(`✗ no TIER_ORDER: ${[...new Set(unordered.map((p) => p.cluster))].join(', ')} cannot be ordered until these are fixed\n`));
    return ExitCode.config;
  }
  // `expanded` (-o json, yaml): whether what the Kustomization applies is in the graph (false: `standup check` says why).
  // `implicitDependsOn`: the HelmRelease orders the tier graph hides (the load builds the tiers that may hold them).
  const expanded = contexts.map(({ plan: p, cluster, graph }): ClusterPlan => {
    const byKey = new Map(cluster.kustomizations.map((k) => [k.key, k]));
    const implicit = implicitDependsOn(cluster, graph);
    return {
      ...p,
      kustomizations: p.kustomizations.map((k) => ({ ...k, expanded: isExpanded(byKey.get(k.key) ?? {}), implicitDependsOn: implicit.get(k.key) ?? [] })),
    };
  });
  const plans = narrow(expanded, selection);
  io.out(
    isDataFormat(format) ? renderDocument(format, { clusters: plans })
      : format === 'markdown' ? renderPlanMarkdown(plans)
        : renderPlanText(plans, io.style),
  );
  warnLoadProblems(repo.problems, contexts.length, io);
  noteNotExpanded(repo.clusters, io);
  return ExitCode.ok;
}

/** `-n`, `-A` and names as one selection; `-n` with `-A` is a contradiction, as in kubectl. */
export function selectionOf(o: PlanOptions): Selection {
  if (o.namespace !== undefined && o.allNamespaces) {
    throw new ConfigError('BAD_FLAG', '-n/--namespace and -A/--all-namespaces contradict each other', 'Pass one of them (no -n means every namespace).');
  }
  const names = o.names ?? [];
  const bad = names.filter((n) => !/^[a-z0-9.-]+(\/[a-z0-9.-]+)?$/.test(n));
  if (bad.length) {
    throw new ConfigError('BAD_ARGUMENT', `not a Kustomization name: ${bad.map((n) => JSON.stringify(n)).join(', ')}`, 'Pass NAME or NAMESPACE/NAME, as in `standup plan apps flux-system/infra`.');
  }
  return { namespace: o.namespace, names };
}

/** Every name must match in at least one cluster; the error lists all that did not, with close names. */
function narrow(plans: ClusterPlan[], s: Selection): SelectedPlan[] {
  const results = plans.map((p) => selectPlan(p, s));
  const missing = s.names.filter((n) => results.every((r) => r.unmatched.includes(n)));
  if (missing.length > 0) {
    const where = s.namespace !== undefined ? ` in namespace ${s.namespace}` : '';
    const clusters = `${plans.length === 1 ? 'cluster' : 'clusters'} ${plans.map((p) => p.name).join(', ')}`;
    const near = [...new Set(missing.flatMap((n) => plans.flatMap((p) => closeNames(p, n))))];
    throw new ConfigError('KUSTOMIZATION_NOT_FOUND', `no Kustomization ${missing.join(', ')}${where} in ${clusters}`,
      near.length ? `Did you mean ${near.join(', ')}? (\`standup plan\` lists them all)` : 'Run `standup plan` (without names) to list them all.');
  }
  return results.map((r) => r.plan);
}
