/** Codes are stable: automation keys on them (`check -o json`). Add, never rename. */
export const PROBLEM_CODES = [
  'cycle',
  'missing-dependency',
  'duplicate',
  'runtime-crd',
  'unresolved-substitution',
  'wait-dependency',
  'cluster-drift',
  'legacy-order',
  'yaml-invalid',
  'path-missing',
  'build-failed',
  'external-source',
  'config-invalid',
  'helmrelease-order',
  'health-check-target',
  'bootstrap-unreadable',
  'ignore-unmatched',
  'ignore-invalid',
  'source-ref',
  'discovery',
  'removed-api',
  'input-provider',
] as const;

export type ProblemCode = (typeof PROBLEM_CODES)[number];

/**
 * `info` says what was not evaluated and why (a tier whose source is not this repository); it never fails `check`,
 * not even with --strict.
 */
export type Severity = 'error' | 'warning' | 'info';

/** One finding, with enough location to act on it. Rules return these; they never throw. */
export interface Problem {
  code: ProblemCode;
  severity: Severity;
  message: string;
  /** Relative to the repository root, or null when the problem has no single file. */
  file: string | null;
  line: number | null;
  /** `Kind/namespace/name`, or `Kind/name` for cluster-scoped objects. */
  object: string | null;
  cluster: string | null;
  /**
   * runtime-crd only: the tiers.yaml `externalCrds` entry that declares the CRD installed outside Flux, when that is
   * one way to resolve the problem.
   */
  externalCrd?: string;
  /** runtime-crd and helmrelease-order: the tier (Kustomization `namespace/name`) whose apply the problem hits. */
  tier?: string;
  /** runtime-crd: the CRD API group concerned. */
  crdGroup?: string;
  /**
   * What the problem points at besides its object, where one object can have several problems of one code: the
   * missing dependency (`namespace/name`), the cycle's path. Part of the fingerprint (src/lint/fingerprint.ts).
   */
  target?: string;
  /** runtime-crd: what installs the group's CRDs, e.g. "HelmRelease/o11y/kube-prometheus-stack (chart ...) in tier o11y/kube-prometheus-stack". */
  installer?: string;
  /** removed-api: the apiVersion to write instead (what `flux migrate` writes). */
  replacement?: string;
  /** removed-api: the Flux minor the rule judged by, and whether standup assumed it (the repository does not say). */
  fluxVersion?: { minor: string; assumed: boolean };
}

export const isError = (p: Problem): boolean => p.severity === 'error';

/** Orders problems by file, line, then code, so output is stable run to run. */
export function sortProblems(problems: readonly Problem[]): Problem[] {
  return [...problems].sort(
    (a, b) =>
      (a.cluster ?? '').localeCompare(b.cluster ?? '') ||
      (a.file ?? '').localeCompare(b.file ?? '') ||
      (a.line ?? 0) - (b.line ?? 0) ||
      a.code.localeCompare(b.code) ||
      a.message.localeCompare(b.message),
  );
}
