import { CliError, ExitCode } from '../model/errors.js';

/** A tier went Ready=False for a reason that will not heal by waiting. Exit 1. */
export class TierFailedError extends CliError {
  constructor(readonly tier: string, message: string, hint: string) {
    super('TIER_FAILED', message, ExitCode.failure, hint);
    this.name = 'TierFailedError';
  }
}

/** A wait ran out of time; lists every tier still pending with its last status. Exit 3. */
export class WaitTimeoutError extends CliError {
  constructor(message: string, readonly pending: string[]) {
    super('WAIT_TIMEOUT', message, ExitCode.timeout,
      'Run `standup resume` to continue from the first unready tier; `standup status` shows where each tier stands.');
    this.name = 'WaitTimeoutError';
  }
}

/** Ctrl-C or SIGTERM. Nothing is left half-applied: every write is a single server-side apply or annotation. */
export class InterruptedError extends CliError {
  constructor() {
    super('INTERRUPTED', 'interrupted', ExitCode.interrupted, 'Run `standup resume` to finish the job from where it stopped.');
    this.name = 'InterruptedError';
  }
}
