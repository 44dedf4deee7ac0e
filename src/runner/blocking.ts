// Which static problems decide whether a cluster can converge, so `up` and `resume` refuse them before any write
// (the same findings `check` prints). Pure.

import type { Problem } from '../model/problem.js';
import { parseRef } from '../model/ref.js';
import type { FallbackCrd } from './run-target.js';

// The loader's errors: a file that does not parse, a path that is not there, a build or substitution that fails.
// Flux would fail the same way (BuildFailed, ArtifactFailed) and never apply the tier or what depends on it.
const LOAD_ERRORS = new Set(['yaml-invalid', 'path-missing', 'build-failed', 'unresolved-substitution', 'config-invalid']);
// dependsOn that can never be satisfied: Flux waits forever (DependencyNotReady, `dependency ... not found`).
const GRAPH_ERRORS = new Set(['cycle', 'missing-dependency']);

/**
 * The problems of one cluster that no run can get past: load and graph errors, and runtime-crd deadlocks (errors)
 * whose kind the CRD fallback does not provide. A deadlock the fallback covers is not one: `up` applies the fallback
 * before the tiers, and `resume` diagnoses it and names `standup crds`.
 */
export function blockingProblems(problems: readonly Problem[], cluster: string, fallback: readonly FallbackCrd[]): Problem[] {
  return problems.filter((p) => {
    if (p.severity !== 'error' || (p.cluster !== null && p.cluster !== cluster)) return false;
    if (LOAD_ERRORS.has(p.code) || GRAPH_ERRORS.has(p.code)) return true;
    if (p.code === 'runtime-crd') {
      // A problem names its object by refKey (the `check -o json` contract); its kind is what the fallback provides.
      const kind = p.object ? parseRef(p.object)?.kind : undefined;
      return !fallback.some((f) => f.kind === kind && (p.externalCrd === undefined || f.group === p.externalCrd));
    }
    return false;
  });
}
