import { sortProblems, type Problem } from '../model/problem.js';
import type { LintInput, Rule } from './rule.js';
import { clusterDriftRule } from './rules/cluster-drift.js';
import { cycleRule } from './rules/cycle.js';
import { duplicateRule } from './rules/duplicate.js';
import { legacyOrderRule } from './rules/legacy-order.js';
import { missingDependencyRule } from './rules/missing-dependency.js';
import { runtimeCrdRule } from './rules/runtime-crd.js';
import { helmReleaseOrderRule } from './rules/helmrelease-order.js';
import { healthCheckTargetRule } from './rules/health-check-target.js';
import { waitDependencyRule } from './rules/wait-dependency.js';
import { removedApiRule } from './rules/removed-api.js';

/** Every rule `check` runs, in the order their problems are most useful to read. */
export const RULES: readonly Rule[] = [
  cycleRule,
  missingDependencyRule,
  duplicateRule,
  runtimeCrdRule,
  removedApiRule,
  helmReleaseOrderRule,
  healthCheckTargetRule,
  waitDependencyRule,
  clusterDriftRule,
  legacyOrderRule,
];

/** Runs every rule and returns all their problems, sorted. Never throws, never stops at the first. */
export function lint(input: LintInput, rules: readonly Rule[] = RULES): Problem[] {
  return sortProblems(rules.flatMap((r) => r.check(input)));
}
