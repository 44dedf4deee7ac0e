import { ExitCode } from '../../model/errors.js';
import { isExpanded } from '../../model/flux.js';
import type { ClusterPlan } from '../../plan/plan.js';
import type { SelectedPlan, Selection } from '../../plan/select.js';
import type { CliCommand } from '../command.js';
import type { Io } from '../io.js';
import { flagsOf, isDataFormat, outputFormat, renderDocument, type GlobalOptions } from '../options.js';
import { addSelectionFlags, NAMES_ARGUMENT, requireNames, selectionOf, type SelectionFlags } from '../selection.js';

export interface PlanOptions extends GlobalOptions, SelectionFlags {
  /** -o json/yaml: find and list each Kustomization's implicitDependsOn (false: --no-helm-orders, not looked for). */
  helmOrders?: boolean;
}

const FORMATS = ['text', 'wide', 'json', 'yaml', 'markdown'] as const;

export const planCommand: CliCommand = {
  name: 'plan',
  formats: FORMATS,
  define: (command, cli) => addSelectionFlags(command
    .description('print TIER_ORDER per cluster, as levels: tiers in one level do not depend on each other')
    .argument('[names...]', `${NAMES_ARGUMENT}; levels keep their numbers`),
  'print only the table\'s rows, one Kustomization a line (no cluster line, order or column names), for scripts')
    .option('--no-helm-orders', 'with -o json or yaml: leave out implicitDependsOn and the builds that find it (faster on a large repository)')
    .addHelpText('after', `
Output (-o): text (default: LEVEL, KUSTOMIZATION, APPLIED BY for nested ones, DEPENDS ON cut to the terminal),
wide (PATH too, nothing cut), json, yaml, markdown. A nested graph (tiers that apply more Kustomizations) starts
with READY ORDER: every Kustomization that must become Ready, level by level; TIER_ORDER keeps its meaning, the
root's own tiers, which is the whole order only when the root applies every tier itself.

Examples:
  standup plan                          every cluster in tiers.yaml (or discovered from flux-system/gotk-sync.yaml)
  standup plan -o json | jq -c '.clusters[] | {name, tiers}'   for automation: {"clusters":[{"name","levels","tiers","kustomizations"}]}
  standup plan -n flux-system -o markdown   a namespace's Kustomizations as a table for a PR comment
  standup plan --no-header | awk '{print $2}'   every Kustomization in order, one a line
  standup plan "$(standup plan --no-header | awk 'END {print $2}')"   one Kustomization (here the last): its level and what it depends on

An entry path without tiers.yaml: \`standup plan --path clusters/NAME\` (with \`--source
GitRepository/flux-system/flux-system\` when no root sync in git says what this repository is called).

A repeat run reuses the render cache ($XDG_CACHE_HOME/standup) for every build whose files did not change;
--no-cache renders everything again.

plan renders only the tiers whose files can hold a Flux Kustomization, so a broken app leaf does not slow it down
or show up here: \`standup check\` renders every tier and reports every problem. A dependsOn cycle, or an entry
that does not build, has no order: plan prints every other cluster, marks that one with its problems (-o json:
"unordered": [{"name","entry","problems"}]), and exits 2; --cluster leaves it out. A Kustomization whose content is
not in the graph (another repository's source, a missing path, a failed build) is noted on stderr, and has
"expanded": false in -o json. -o json and -o yaml also list, per Kustomization, "implicitDependsOn": the tiers
its HelmReleases' dependsOn wait for outside its own dependsOn (check's helmrelease-order); to find them plan also
renders the tiers whose files may hold such HelmReleases, which on a large repository can cost more than the plan
itself: --no-helm-orders leaves the field out (not looked for) and costs what -o text costs.`)
    .action(async (names, o, cmd) => cli.exit(await plan({ ...flagsOf(o, cmd), names }, cli.io))),
};

/**
 * `standup plan`: TIER_ORDER per cluster, as numbered levels; `-n` and names narrow it to some Kustomizations. A
 * cluster with no order (a dependsOn cycle, or an entry that does not build) is marked with its problems, the others
 * are printed, and plan exits 2.
 */
export async function plan(o: PlanOptions, io: Io): Promise<number> {
  const format = outputFormat(o.output, FORMATS, 'text');
  const selection = selectionOf(o);
  const helmOrders = isDataFormat(format) && o.helmOrders !== false;
  const [{ loadAndPlan, noteNotExpanded, reportUnordered, unorderedClusters, warnLoadProblems }, { implicitDependsOn }, ui] = await Promise.all([
    import('../load-and-plan.js'), import('../../plan/helm-order.js'), import('../../ui/unordered.js'),
  ]);
  const { repo, contexts: all } = await loadAndPlan(o, io, undefined, 'graph', undefined, { helmOrders });
  // A cluster with no order (a cycle, an entry that does not build) is marked; every other one is still printed.
  const unordered = unorderedClusters(repo, all);
  const contexts = all.filter((c) => !unordered.some((u) => u.name === c.cluster.name));
  // `expanded` (-o json, yaml): whether what the Kustomization applies is in the graph (false: `standup check` says why).
  // `implicitDependsOn` (unless --no-helm-orders): the HelmRelease orders the tier graph hides (the load builds the tiers that
  // may hold them); left out with --no-helm-orders, as nothing looked for them.
  const expanded = contexts.map(({ plan: p, cluster, graph }): ClusterPlan => {
    const byKey = new Map(cluster.kustomizations.map((k) => [k.key, k]));
    const implicit = helmOrders ? implicitDependsOn(cluster, graph) : null;
    return {
      ...p,
      kustomizations: p.kustomizations.map((k) => ({
        ...k, expanded: isExpanded(byKey.get(k.key) ?? {}), ...(implicit ? { implicitDependsOn: implicit.get(k.key) ?? [] } : {}),
      })),
    };
  });
  const plans = contexts.length ? await narrow(expanded, selection, io) : [];
  if (isDataFormat(format)) {
    const { planDocument } = await import('../../plan/plan.js');
    io.out(renderDocument(format, { clusters: plans.map(planDocument), ...(unordered.length ? { unordered: ui.unorderedJson(unordered) } : {}) }));
  } else if (format === 'markdown') {
    const text = plans.length ? (await import('../../ui/plan-markdown.js')).renderPlanMarkdown(plans) : '';
    io.out([text, unordered.length ? ui.renderUnorderedMarkdown(unordered) : ''].filter(Boolean).join('\n'));
  } else {
    const text = plans.length ? (await import('../../ui/plan-text.js')).renderPlanText(plans, io.style, { wide: format === 'wide', columns: io.columns?.(), header: o.header !== false }) : '';
    io.out([text, unordered.length ? ui.renderUnorderedText(unordered, io.style) : ''].filter(Boolean).join('\n'));
  }
  warnLoadProblems(repo.problems.filter((p) => !unordered.some((u) => u.problems.includes(p))), all.length, io);
  noteNotExpanded(repo.clusters.filter((c) => !unordered.some((u) => u.name === c.name)), io);
  if (unordered.length) {
    reportUnordered(unordered, all, io);
    return ExitCode.config;
  }
  return ExitCode.ok;
}

/** The plans narrowed to the selection; every name must match in at least one cluster. */
async function narrow(plans: ClusterPlan[], s: Selection, io: Io): Promise<SelectedPlan[]> {
  const { selectPlan } = await import('../../plan/select.js');
  await requireNames(plans.map((p) => p.kustomizations.map((k) => k.key)), plans.map((p) => p.name), s, 'plan', io);
  return plans.map((p) => selectPlan(p, s).plan);
}
