import { CliError, ExitCode } from '../model/errors.js';
import type { Problem } from '../model/problem.js';

/** A tier went Ready=False for a reason that will not heal by waiting (or several did). Exit 1. */
export class TierFailedError extends CliError {
  constructor(readonly tier: string, message: string, hint: string) {
    super('TIER_FAILED', message, ExitCode.failure, hint);
    this.name = 'TierFailedError';
  }
}

/** A wait ran out of its own time; lists every tier still pending with its last status. Exit 3. */
export class WaitTimeoutError extends CliError {
  constructor(message: string, readonly pending: string[], hint = 'Run `standup resume` to continue from the first unready tier; `standup status` shows where each tier stands.') {
    super('WAIT_TIMEOUT', message, ExitCode.timeout, hint);
    this.name = 'WaitTimeoutError';
  }
}

/** The run's own deadline (--timeout) passed. Exit 3. */
export class RunTimeoutError extends CliError {
  constructor(message: string, hint: string) {
    super('RUN_TIMEOUT', message, ExitCode.timeout, hint);
    this.name = 'RunTimeoutError';
  }
}

/** Ctrl-C or SIGTERM. Nothing is left half-applied: every write is a single server-side apply or annotation. */
export class InterruptedError extends CliError {
  constructor(hint = 'Run `standup resume` to finish the job from where it stopped.') {
    super('INTERRUPTED', 'interrupted', ExitCode.interrupted, hint);
    this.name = 'InterruptedError';
  }
}

/**
 * Why a run's signal was aborted, as the error to end the work with: its reason when the run set one (Ctrl-C, the
 * --timeout), else an interrupt.
 */
export const abortError = (signal: AbortSignal): CliError => (signal.reason instanceof CliError ? signal.reason : new InterruptedError());

/**
 * The graph standup was asked to drive cannot converge (a cycle, a missing dependency, an entry that does not build,
 * a deadlock no fallback covers): refused before anything is written. Exit 2; `problems` are check's findings.
 */
export class NotConvergeableError extends CliError {
  constructor(readonly problems: readonly Problem[]) {
    super(
      'NOT_CONVERGEABLE',
      `${problems.length} problem${problems.length === 1 ? '' : 's'} keep${problems.length === 1 ? 's' : ''} this cluster from converging; nothing was written`,
      ExitCode.config,
      'Fix them (`standup check` lists the same), or pass --force to go ahead anyway.',
    );
    this.name = 'NotConvergeableError';
  }
}
