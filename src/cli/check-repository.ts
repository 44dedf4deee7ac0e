import { readFile } from 'node:fs/promises';
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
  // tiers.yaml's parser (yaml, zod) only when there is a tiers.yaml: a warm check of a repository without one never loads it.
  const ignoreLines = repo.configFile ? (await import('../repo/tiers-yaml-parser.js')).ignoreEntryLines(await readFile(repo.configFile, 'utf8')) : [];
  const { kept, suppressed } = findProblems({
    clusters: contexts, config: repo.config, legacyOrder, bootstrap, loadProblems: repo.problems, models: repo.clusters, ignoreLines,
  });
  return { bootstrap, kept, suppressed };
}
