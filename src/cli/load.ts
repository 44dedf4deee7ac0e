import { loadRepository, type LoadedRepository } from '../repo/load.js';
import type { Problem } from '../model/problem.js';
import { planCluster, type PlanContext } from '../plan/plan.js';
import type { GlobalOptions } from './options.js';
import type { Io } from './io.js';
import { renderProblemsText } from '../ui/problems-text.js';

export interface Planned {
  repo: LoadedRepository;
  contexts: PlanContext[];
}

/**
 * Loads the repository (or one revision of it) and plans every selected cluster. `scope: 'graph'` is for commands
 * that show only the Kustomization graph: leaf tiers are not built, so their build problems are not seen either.
 */
export async function loadAndPlan(o: GlobalOptions, io: Io, rev?: string, scope: 'all' | 'graph' = 'all'): Promise<Planned> {
  const repo = await loadRepository({ repo: o.repo ?? undefined, clusters: o.cluster.length ? o.cluster : undefined, path: o.path, rev, scope });
  const exclude = new Set(repo.config.exclude);
  return { repo, contexts: repo.clusters.map((c) => planCluster(c, exclude)) };
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
