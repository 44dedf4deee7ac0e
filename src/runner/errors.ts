import { CliError } from '../model/errors.js';

/** A tier went Ready=False for a reason that will not heal by waiting (or several did). Exit 1. */
export class TierFailedError extends CliError {
  constructor(readonly tier: string, message: string, hint: string) {
    super('TIER_FAILED', message, { hint });
    this.name = 'TierFailedError';
  }
}

/** A wait ran out of its own time; lists every tier still pending with its last status. Exit 3. */
export class WaitTimeoutError extends CliError {
  constructor(message: string, readonly pending: string[], hint = 'Run `standup resume` to continue from the first unready tier; `standup status` shows where each tier stands.') {
    super('WAIT_TIMEOUT', message, { hint });
    this.name = 'WaitTimeoutError';
  }
}

/** A tier that failed: its key, why (Flux's words and what the watches showed) and what to do. */
export interface TierFailure {
  key: string;
  message: string;
  hint: string;
}

/** Every failed tier with its reason (the first alone reads as before); `after`: what else ended the run. */
export function tierFailedError(failures: readonly TierFailure[], after = ''): TierFailedError {
  const said = (f: TierFailure) => (f.message.startsWith(f.key) ? f.message : `${f.key}: ${f.message}`);
  const message = failures.length === 1 ? said(failures[0]!) : `${failures.length} tiers failed:\n${failures.map((f) => `- ${said(f).replace(/\n/g, '\n  ')}`).join('\n')}`;
  const hints = [...new Set(failures.map((f) => f.hint).filter(Boolean))];
  return new TierFailedError(failures[0]!.key, `${message}${after ? `\n${after}` : ''}`, hints.join('\n'));
}

/** The run's own deadline (--timeout) passed. Exit 3. */
export class RunTimeoutError extends CliError {
  constructor(message: string, hint: string) {
    super('RUN_TIMEOUT', message, { hint });
    this.name = 'RunTimeoutError';
  }
}

/** Ctrl-C or SIGTERM. Nothing is left half-applied: every write is a single server-side apply or annotation. */
export class InterruptedError extends CliError {
  /**
   * `why`: what stopped the run when it was not a signal (the output was closed); `doing`: what the interrupt cut
   * short, when a step can say it better than its title (preflight: connecting to the API server).
   */
  constructor(hint = 'Run `standup resume` to finish the job from where it stopped.', readonly why?: string, doing?: string) {
    super('INTERRUPTED', `interrupted${doing ? ` while ${doing}` : ''}${why ? `: ${why}` : ''}`, { hint });
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
 * a deadlock no fallback covers): refused before anything is written. Exit 2; the run's `problems` event lists them.
 */
export class NotConvergeableError extends CliError {
  /** `codes`: the problems' codes; a CRD deadlock has a remedy of its own, and --force would only wait it out. */
  constructor(count: number, codes: readonly string[] = []) {
    super(
      'NOT_CONVERGEABLE',
      `${count} problem${count === 1 ? '' : 's'} keep${count === 1 ? 's' : ''} this cluster from converging; nothing was written`,
      {
        hint: codes.includes('runtime-crd')
          ? 'For a CRD deadlock, put the CRD in the CRD fallback (`crds:` in tiers.yaml: applied before the tiers, as `standup crds` does) or move its installer to a tier that runs first; fix the rest as `standup check` says. --force goes ahead, but a deadlocked tier then waits until its timeout.'
          : 'Fix them (`standup check` lists the same), or pass --force to go ahead anyway.',
      },
    );
    this.name = 'NotConvergeableError';
  }
}
