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

/** Every error the CLI reports on purpose carries a stable code and the exit code it maps to. */
export class CliError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly exitCode: ExitCodeValue = ExitCode.failure,
    /** What the operator should do next; printed under the message. */
    readonly hint?: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'CliError';
  }
}

/** Input the user can fix (a file, a flag, tiers.yaml). Exit 2. */
export class ConfigError extends CliError {
  constructor(code: string, message: string, hint?: string, options?: ErrorOptions) {
    super(code, message, ExitCode.config, hint, options);
    this.name = 'ConfigError';
  }
}

/** A bug in standup itself: asks for a report instead of blaming the input. */
export class InternalError extends CliError {
  constructor(message: string, options?: ErrorOptions) {
    super('INTERNAL', message, ExitCode.failure, 'This is a bug in standup; please report it with the command you ran.', options);
    this.name = 'InternalError';
  }
}
