// What `check` reports for a repository, and what up and resume refuse to run on: the loader's problems, the
// bootstrap's, every rule's, then the suppressions (tiers.yaml `ignore:` and the standup.io/ignore annotation).
// Pure: the repository, the bootstrap and the lines of tiers.yaml were read by the caller.
import type { ClusterModel } from '../model/flux.js';
import type { Problem } from '../model/problem.js';
import type { Bootstrap } from '../model/bootstrap.js';
import { lint } from './index.js';
import type { LintInput } from './rule.js';
import { applySuppressions, type SuppressionResult } from './suppress.js';

export interface FindingsInput extends LintInput {
  bootstrap: Bootstrap;
  /** The loader's problems (a build that failed, a path that is missing), reported as they are. */
  loadProblems: Problem[];
  /**
   * Every cluster the repository loaded, for the standup.io/ignore annotations on their objects. May be more than
   * `clusters` (the ones linted): a run lints the cluster it acts on, but an annotation is read wherever it is.
   */
  models: readonly ClusterModel[];
  /** `ignoreLines[i]` is the tiers.yaml line of `config.ignore[i]`, when known (see applySuppressions). */
  ignoreLines: (number | null)[];
}

/** Every finding, split into those shown (`kept`) and those a suppression hides with its reason. */
export function findProblems(input: FindingsInput): SuppressionResult {
  const found = [...input.loadProblems, ...input.bootstrap.problems, ...lint(input)];
  return applySuppressions(found, input.config, input.models, input.ignoreLines);
}
