import { loadRepository, type LoadedRepository } from '../repo/load.js';
import { defaultCacheDir } from '../repo/render-cache.js';
import { isExpanded, type ClusterModel } from '../model/flux.js';
import type { Problem } from '../model/problem.js';
import { planCluster, type PlanContext } from '../plan/plan.js';
import type { GlobalOptions } from './options.js';
import { inCI, type Io } from './io.js';
import { debugEnabled } from '../model/debug.js';
import { noProgress, progressLine, type Progress } from '../ui/progress.js';
import { renderProblemsText } from '../ui/problems-text.js';

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
      rev,
      scope,
      helmOrders: more.helmOrders,
      cache: o.cache === false ? false : (defaultCacheDir(io.env) ?? false),
      onProgress: onProgress ?? own!.update,
    });
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
}
