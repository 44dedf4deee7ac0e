import { findProblems } from '../lint/findings.js';
import type { LintInput } from '../lint/rule.js';
import type { Suppressed } from '../lint/suppress.js';
import type { Bootstrap } from '../model/bootstrap.js';
import type { Problem } from '../model/problem.js';
import type { PlanContext } from '../plan/plan.js';
import { readPreFluxInstalls } from '../bootstrap/pre-flux-installs.js';
import type { LoadedRepository } from '../load/load-repository.js';

export interface RepositoryCheck {
  /** What the repository installs before Flux, for check's "bootstrap installs" line. */
  bootstrap: Bootstrap;
  /** The problems to show. */
  kept: Problem[];
  /** The problems a suppression hides, each with its reason. */
  suppressed: Suppressed[];
}

/**
 * check's findings on a loaded repository, for `standup check` and for the checks up and resume run first, so a
 * refused run says exactly what check says. Reads what the bootstrap installs and the lines of tiers.yaml's ignore
 * entries; `contexts` are the clusters to lint.
 */
export async function checkRepository(repo: LoadedRepository, contexts: PlanContext[], legacyOrder?: LintInput['legacyOrder']): Promise<RepositoryCheck> {
  const bootstrap = readPreFluxInstalls(repo.root, repo.config, repo.clusters, repo.problems, repo.memo);
  // Only when tiers.yaml has ignore entries (on the path of every up: this was a second parse of tiers.yaml, and
  // loading zod, ~140 KB of code, after the load), from the text the load validated.
  const ignoreLines = repo.configText !== null && repo.config.ignore.length > 0 ? (await import('../repo/tiers-yaml-lines.js')).ignoreEntryLines(repo.configText, repo.memo) : [];
  const { kept, suppressed } = findProblems({
    clusters: contexts, config: repo.config, legacyOrder, bootstrap, loadProblems: repo.problems, models: repo.clusters, ignoreLines,
  });
  return { bootstrap, kept, suppressed };
}
