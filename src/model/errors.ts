/**
 * Exit codes are part of the CLI's contract (README "Exit codes"). Only src/cli/main.ts ends the process with them.
 */
export const ExitCode = {
  ok: 0,
  /** A step failed: a tier went Ready=False for a terminal reason, an apply was rejected. */
  failure: 1,
  /** Bad configuration or input, or `check` found errors: fix the repository or tiers.yaml, then run again. */
  config: 2,
  /** A wait ran out of time; `standup resume` picks up where it stopped. */
  timeout: 3,
  /** The context guard refused: the kube context does not match the cluster's entry in tiers.yaml. */
  guard: 4,
  /** Interrupted (SIGINT/SIGTERM); `standup resume` finishes the job. */
  interrupted: 130,
} as const;
export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/**
 * Every code an error standup reports on purpose carries (`code` in -o json's run-end and in --record), with the
 * exit code it ends the command with. A code means one situation, so it has one exit code.
 */
const EXIT_CODE_OF = {
  // Exit 2: input the user can fix (a flag, an argument, tiers.yaml, a file of the repository, the kubeconfig).
  BAD_FLAG: ExitCode.config,
  BAD_ARGUMENT: ExitCode.config,
  BAD_DURATION: ExitCode.config,
  CONFIG_INVALID: ExitCode.config,
  REPO_NOT_FOUND: ExitCode.config,
  PATH_NOT_FOUND: ExitCode.config,
  NO_CLUSTERS: ExitCode.config,
  UNKNOWN_CLUSTER: ExitCode.config,
  CLUSTER_AMBIGUOUS: ExitCode.config,
  NO_KUSTOMIZATION: ExitCode.config,
  KUSTOMIZATION_NOT_FOUND: ExitCode.config,
  UNKNOWN_KUSTOMIZATION: ExitCode.config,
  KUSTOMIZE_NOT_FOUND: ExitCode.config,
  MANIFESTS_MISSING: ExitCode.config,
  BUILD_FAILED: ExitCode.config,
  YAML_INVALID: ExitCode.config,
  LEGACY_ORDER_UNREADABLE: ExitCode.config,
  LEGACY_ORDER_EMPTY: ExitCode.config,
  /** check --baseline FILE: the file cannot be read, or is not a baseline standup wrote. */
  BASELINE_UNREADABLE: ExitCode.config,
  BASELINE_INVALID: ExitCode.config,
  /** standup init: tiers.yaml exists, and --force was not given. */
  CONFIG_EXISTS: ExitCode.config,
  NOT_A_GIT_REPOSITORY: ExitCode.config,
  REV_NOT_FOUND: ExitCode.config,
  REV_EXPORT_FAILED: ExitCode.config,
  BASE_UNKNOWN: ExitCode.config,
  BASE_NOT_FETCHED: ExitCode.config,
  SHALLOW_CHECKOUT: ExitCode.config,
  FETCH_FAILED: ExitCode.config,
  MERGE_BASE_FAILED: ExitCode.config,
  NO_MERGE_BASE: ExitCode.config,
  KUBECONFIG_MISSING: ExitCode.config,
  KUBECONFIG_NONE: ExitCode.config,
  KUBECONFIG_EMPTY: ExitCode.config,
  KUBECONFIG_INVALID: ExitCode.config,
  CONTEXT_UNKNOWN: ExitCode.config,
  CONTEXT_NONE: ExitCode.config,
  CLUSTER_UNKNOWN: ExitCode.config,
  CONTEXT_UNPINNED: ExitCode.config,
  BOOTSTRAP_UNCONFIGURED: ExitCode.config,
  /** tiers.yaml's bootstrap.install.instance names no usable FluxInstance. */
  BOOTSTRAP_INSTANCE_INVALID: ExitCode.config,
  /** tiers.yaml's bootstrap.install names a Helm chart in a form standup cannot hand to helm (its source or values are not in the repository). */
  BOOTSTRAP_CHART: ExitCode.config,
  /** bootstrap.install names a Helm chart and no helm is found (PATH, STANDUP_HELM). */
  HELM_NOT_FOUND: ExitCode.config,
  /** `helm template` of the chart bootstrap.install names failed (chart not found, bad values): helm's words. */
  HELM_FAILED: ExitCode.config,
  CRDS_EMPTY: ExitCode.config,
  SECRET_SOURCE: ExitCode.config,
  SECRET_MISSING: ExitCode.config,
  SECRET_ENCRYPTED: ExitCode.config,
  SOPS_MISSING: ExitCode.config,
  SOPS_FAILED: ExitCode.config,
  MIRROR_UNSUPPORTED: ExitCode.config,
  MIRROR_NO_SOURCE: ExitCode.config,
  MIRROR_NO_ROOT: ExitCode.config,
  MIRROR_WOULD_NOT_HOLD: ExitCode.config,
  ROOT_SOURCE_UNKNOWN: ExitCode.config,
  /** --local-source or tiers.yaml localSources: malformed, or its directory is missing or holds no manifests. */
  LOCAL_SOURCE_INVALID: ExitCode.config,
  /** Flux's CRDs are not on the cluster (preflight), and this command does not install Flux: a setup problem. */
  FLUX_MISSING: ExitCode.config,
  /** check's rules say the graph cannot converge; up and resume refuse before writing. */
  NOT_CONVERGEABLE: ExitCode.config,
  /** reset without --yes and without a terminal to ask on. */
  CONFIRMATION_NEEDED: ExitCode.config,

  // Exit 1: a step failed, or the cluster is in a state standup cannot go on from.
  TIER_FAILED: ExitCode.failure,
  APPLY_FAILED: ExitCode.failure,
  /** Flux's CRDs were there at preflight and went away during the run: the cluster changed under it. */
  FLUX_GONE: ExitCode.failure,
  API_UNREACHABLE: ExitCode.failure,
  FLUX_INSTALL_FAILED: ExitCode.failure,
  SOURCE_MISSING: ExitCode.failure,
  SOURCE_FAILED: ExitCode.failure,
  SOURCE_SUSPENDED: ExitCode.failure,
  SOURCE_FIGHT: ExitCode.failure,
  ROOT_SUSPENDED: ExitCode.failure,
  /** A bug in standup itself. */
  INTERNAL: ExitCode.failure,
  // A request to the API server failed, by the reason src/cluster/errors.ts gives it (CLUSTER_<REASON>).
  CLUSTER_NOTFOUND: ExitCode.failure,
  CLUSTER_CONFLICT: ExitCode.failure,
  CLUSTER_INVALID: ExitCode.failure,
  CLUSTER_NOKIND: ExitCode.failure,
  CLUSTER_FORBIDDEN: ExitCode.failure,
  CLUSTER_UNAUTHORIZED: ExitCode.failure,
  CLUSTER_GONE: ExitCode.failure,
  CLUSTER_UNREACHABLE: ExitCode.failure,
  CLUSTER_ABORTED: ExitCode.failure,
  CLUSTER_OTHER: ExitCode.failure,

  // Exit 3: a wait ran out of time.
  WAIT_TIMEOUT: ExitCode.timeout,
  RUN_TIMEOUT: ExitCode.timeout,
  CLUSTER_TIMEOUT: ExitCode.timeout,
  /** An apply whose request timed out (the API server too slow to answer); APPLY_FAILED is one it rejected. */
  APPLY_TIMEOUT: ExitCode.timeout,

  // Exit 4: refused; nothing changed.
  CONTEXT_GUARD: ExitCode.guard,
  RESET_REFUSED: ExitCode.guard,
  RESET_DECLINED: ExitCode.guard,

  // Exit 130: interrupted.
  INTERRUPTED: ExitCode.interrupted,
} as const satisfies Record<string, ExitCodeValue>;

export type ErrorCode = keyof typeof EXIT_CODE_OF;

/** The codes that end a command with exit 2: input the user can fix. */
export type ConfigErrorCode = { [C in ErrorCode]: (typeof EXIT_CODE_OF)[C] extends typeof ExitCode.config ? C : never }[ErrorCode];

export const exitCodeOf = (code: ErrorCode): ExitCodeValue => EXIT_CODE_OF[code];

export const isErrorCode = (code: string): code is ErrorCode => Object.hasOwn(EXIT_CODE_OF, code);

export interface CliErrorOptions extends ErrorOptions {
  /** What the operator should do next; printed under the message. */
  hint?: string;
}

/** Every error the CLI reports on purpose carries a stable code, and the exit code the code maps to. */
export class CliError extends Error {
  readonly code: ErrorCode;
  readonly exitCode: ExitCodeValue;
  readonly hint?: string;

  constructor(code: ErrorCode, message: string, options: CliErrorOptions = {}) {
    super(message, 'cause' in options ? { cause: options.cause } : undefined);
    this.name = 'CliError';
    this.code = code;
    this.exitCode = exitCodeOf(code);
    this.hint = options.hint;
  }
}

/** Input the user can fix (a file, a flag, tiers.yaml). Exit 2. */
export class ConfigError extends CliError {
  constructor(code: ConfigErrorCode, message: string, hint?: string, options?: ErrorOptions) {
    super(code, message, { ...options, hint });
    this.name = 'ConfigError';
  }
}

/** A bug in standup itself: asks for a report instead of blaming the input. */
export class InternalError extends CliError {
  constructor(message: string, options?: ErrorOptions) {
    super('INTERNAL', message, { ...options, hint: 'This is a bug in standup; please report it with the command you ran.' });
    this.name = 'InternalError';
  }
}
