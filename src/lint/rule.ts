import type { PlanContext } from '../plan/plan.js';
import type { StandupConfig } from '../model/config.js';
import type { Problem, ProblemCode, Severity } from '../model/problem.js';
import type { FluxKustomization } from '../model/flux.js';
import type { Bootstrap } from '../model/bootstrap.js';

/** What a rule sees: every cluster already planned, the configuration, and optional inputs. Rules never do I/O. */
export interface LintInput {
  clusters: PlanContext[];
  config: StandupConfig;
  /** Tier names from `--legacy-order FILE`, with the file for locations. */
  legacyOrder?: { file: string; tiers: { name: string; line: number }[] };
  /** What the repository installs before Flux (src/bootstrap/pre-flux-installs.ts); none when absent. */
  bootstrap?: Bootstrap;
  /** The loader's problems: a tier with build-failed was not expanded, so what it installs is not known. */
  loadProblems?: Problem[];
}

export interface Rule {
  code: ProblemCode;
  /** One line: the invariant the rule keeps. */
  description: string;
  check(input: LintInput): Problem[];
}

/** A problem about one Kustomization, located at its definition. */
export function atKustomization(
  code: ProblemCode,
  severity: Severity,
  cluster: string,
  ks: FluxKustomization,
  message: string,
  line: number | null = ks.origin.line,
): Problem {
  return {
    code,
    severity,
    message,
    file: ks.origin.file,
    line,
    object: `Kustomization/${ks.key}`,
    cluster,
  };
}
