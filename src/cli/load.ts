import { loadRepository, type LoadedRepository } from '../repo/load.js';
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
): Promise<Planned> {
  const own = onProgress ? null : loadProgress(io);
  try {
    const repo = await loadRepository({ repo: o.repo ?? undefined, clusters: o.cluster.length ? o.cluster : undefined, path: o.path, rev, scope, onProgress: onProgress ?? own!.update });
    const exclude = new Set(repo.config.exclude);
    return { repo, contexts: repo.clusters.map((c) => planCluster(c, exclude)) };
  } finally {
    own?.stop();
  }
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
