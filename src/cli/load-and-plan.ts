import { loadRepository, type LoadedRepository } from '../load/load-repository.js';
import { renderCacheDir } from '../cache/render-cache.js';
import { isExpanded, type ClusterModel } from '../model/flux.js';
import type { Problem } from '../model/problem.js';
import { planCluster, type PlanContext } from '../plan/plan.js';
import type { GlobalOptions } from './options.js';
import { inCI, type Io } from './io.js';
import { debugEnabled } from '../model/debug.js';
import { noProgress, progressLine, type Progress } from '../ui/progress.js';
import { renderProblemsText } from '../ui/problems-text.js';
import { cycleRule } from '../lint/rules/cycle.js';
import { unorderedVerdict, type UnorderedCluster } from '../ui/unordered.js';

export interface Planned {
  repo: LoadedRepository;
  contexts: PlanContext[];
}

/**
 * Loads the repository (or one revision of it) and plans every selected cluster. `scope: 'graph'` is for commands
 * that show only the Kustomization graph: leaf tiers are not built, so their build problems are not seen either.
 */
export async function loadAndPlan(
  o: GlobalOptions,
  io: Io,
  rev?: string,
  scope: 'all' | 'graph' = 'all',
  /** Where the build progress goes; by default a progress line on a terminal's stderr (see loadProgress). */
  onProgress?: (done: number, total: number) => void,
  /** With scope 'graph': build what `plan -o json`'s implicitDependsOn needs too (see LoadOptions.helmOrders). */
  more: { helmOrders?: boolean } = {},
): Promise<Planned> {
  const own = onProgress ? null : loadProgress(io);
  let repo: LoadedRepository;
  try {
    repo = await loadRepository({
      repo: o.repo ?? undefined,
      clusters: o.cluster.length ? o.cluster : undefined,
      path: o.path,
      source: o.source,
      localSources: o.localSource,
      rev,
      scope,
      helmOrders: more.helmOrders,
      cache: renderCacheDir(o, io.env),
      onProgress: onProgress ?? own!.update,
    }, io.loadSession);
  } finally {
    own?.stop();
  }
  for (const n of repo.notices) io.err(`${io.errStyle.yellow('!')} ${n}\n`);
  const exclude = new Set(repo.config.exclude);
  return { repo, contexts: repo.clusters.map((c) => planCluster(c, exclude)) };
}

/** "rendering 87/135 Kustomizations" on stderr while a large repository loads: only on a terminal, never in CI or with --verbose. */
export function loadProgress(io: Io): Progress {
  if (!io.errIsTTY || inCI(io.env) || io.env.TERM === 'dumb' || debugEnabled()) return noProgress;
  return progressLine(process.stderr, { label: (done, total) => `rendering ${done}/${total} Kustomizations` });
}

/**
 * plan, graph and diff still print what they could derive when some path failed to render; they say so on
 * stderr, and `check` is the gate that fails on it.
 */
export function warnLoadProblems(problems: Problem[], clusters: number, io: Io): void {
  const errors = problems.filter((p) => p.severity === 'error');
  if (errors.length === 0) return;
  io.err(renderProblemsText(errors, clusters, io.errStyle));
  io.err(io.errStyle.yellow('! the graph above may be incomplete: fix these, then run `standup check`\n'));
}

const RS_WHY: Record<string, string> = { 'build-failed': 'template does not render', 'inputs-unknown': 'input provider not readable offline' };

const WHY: Record<string, string> = { 'external-source': 'source not this repository', 'path-missing': 'path missing', 'build-failed': 'build failed' };

/**
 * plan and graph: one line per cluster on stderr naming the Kustomizations whose content is not in the graph (an
 * external source, a missing path, a failed build), so a short graph is never taken for the whole one.
 */
export function noteNotExpanded(clusters: ClusterModel[], io: Io): void {
  for (const c of clusters) {
    const not = c.kustomizations.filter((k) => !isExpanded(k));
    if (not.length === 0) continue;
    const groups = new Map<string, string[]>();
    for (const k of not) groups.set(k.expansion!, [...(groups.get(k.expansion!) ?? []), k.key]);
    const parts = [...groups].map(([why, keys]) => `${WHY[why] ?? why}: ${keys.slice(0, 4).join(', ')}${keys.length > 4 ? ` and ${keys.length - 4} more` : ''}`);
    const where = clusters.length > 1 ? `cluster ${c.name}: ` : '';
    io.err(`${io.errStyle.yellow('!')} ${where}${not.length} Kustomization${not.length === 1 ? '' : 's'} not expanded (${parts.join('; ')}); run \`standup check\` for why\n`);
  }
  // A ResourceSet not expanded hides every Kustomization it would generate: said the same way.
  for (const c of clusters) {
    const not = (c.resourceSets ?? []).filter((r) => r.expansion !== 'built');
    if (not.length === 0) continue;
    const parts = not.slice(0, 4).map((r) => `${r.namespace}/${r.name}: ${RS_WHY[r.expansion] ?? r.expansion}`);
    const where = clusters.length > 1 ? `cluster ${c.name}: ` : '';
    io.err(`${io.errStyle.yellow('!')} ${where}${not.length} ResourceSet${not.length === 1 ? '' : 's'} not expanded (${parts.join('; ')}${not.length > 4 ? ` and ${not.length - 4} more` : ''}); run \`standup check\` for why\n`);
  }
}

/**
 * The clusters that have no order: a dependsOn cycle, or an entry that does not build. plan, graph and diff print
 * the others and mark these (src/ui/unordered.ts).
 */
export function unorderedClusters(repo: LoadedRepository, contexts: PlanContext[]): UnorderedCluster[] {
  const problems = [
    ...cycleRule.check({ clusters: contexts, config: repo.config }),
    ...repo.problems.filter((p) => p.code === 'build-failed' && p.severity === 'error' && contexts.some((c) => c.cluster.name === p.cluster && c.cluster.entry === p.file)),
  ];
  return contexts
    .filter((c) => problems.some((p) => p.cluster === c.cluster.name))
    .map((c) => ({ name: c.cluster.name, entry: c.cluster.entry, problems: problems.filter((p) => p.cluster === c.cluster.name) }));
}

/** Their problems in full on stderr, then which clusters were printed and the --cluster flags that leave the rest out. */
export function reportUnordered(unordered: UnorderedCluster[], contexts: PlanContext[], io: Io): void {
  const problems = unordered.flatMap((u) => u.problems);
  io.err(renderProblemsText(problems, contexts.length, io.errStyle));
  io.err(unorderedVerdict(unordered, contexts.map((c) => c.cluster.name).filter((n) => !unordered.some((u) => u.name === n)), io.errStyle));
}
