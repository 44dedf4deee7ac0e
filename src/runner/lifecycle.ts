import { requestsPerMinute, type ClusterClient, type RequestStats } from '../cluster/client.js';
import { CliError, ExitCode } from '../model/errors.js';
import { humanDuration } from '../status/durations.js';
import { systemClock, type Clock } from './clock.js';
import { stoppedRunError } from './advice.js';
import { abortError, InterruptedError, RunTimeoutError, type TierFailure } from './errors.js';
import type { ApiTraffic, Emit, HelmReleaseRequests, RunEvent, StepReport } from './events.js';
import { OutageLog } from './outages.js';
import { runParts, stepsOf, type RunPlan } from './run-plan.js';
import { StepLedger } from './step-ledger.js';
import { parseStepId } from './step-id.js';
import { resultOf, StepTracker } from './steps.js';

/** What a part of a run gets: the one step tracker, the run's signal (Ctrl-C and --timeout), the outage log, the clock. */
export interface RunScope {
  steps: StepTracker;
  emit: Emit;
  signal: AbortSignal;
  outages: OutageLog;
  clock: Clock;
  /** Counts the parts leave for run-end, however the run ends. */
  summary: RunSummary;
}

export interface RunSummary {
  helmReleases?: HelmReleaseRequests;
  /** The tiers that failed, as they failed: a run stopped later still names them. */
  failedTiers?: TierFailure[];
}

export interface RunResult {
  ok: boolean;
  exitCode: number;
  /** The error that ended the run (its message and hint are what the CLI prints last). */
  error?: unknown;
  message: string;
}

export interface DriveOptions {
  client: ClusterClient;
  emit: Emit;
  /** Aborted by Ctrl-C / SIGTERM. */
  signal: AbortSignal;
  /** --timeout, in ms (Infinity: none). */
  overallMs: number;
  clock?: Clock;
}

/**
 * Runs a plan between its `plan` and `run-end` events: the runner owns the whole stream. Whatever ends the run
 * (success, a failed step, Ctrl-C, --timeout), every started step ends with what it was doing, run-end carries the
 * error's code and exit code and every step's end, and the result says how the process should exit. Never throws.
 */
export async function drive(plan: RunPlan, o: DriveOptions): Promise<RunResult> {
  const clock = o.clock ?? systemClock;
  const started = clock.now();
  const planned = stepsOf(plan.parts);
  const ledger = new StepLedger(planned);
  const titles = new Map(planned.map((s) => [s.id, s.title]));
  const traffic = tierTraffic(o.client, clock);
  const emit: Emit = (e) => {
    ledger.see(e);
    traffic.see(e);
    o.emit(e);
  };
  const steps = new StepTracker(emit, () => clock.now());
  const outages = new OutageLog(o.client, emit, () => clock.now());
  // One signal for the run, aborted with the reason every waiter then throws: Ctrl-C, or the --timeout (worded at
  // the moment it fires, while the steps it cut short are still open).
  const run = new AbortController();
  // A string reason says what stopped the run when it was not Ctrl-C (the output was closed).
  const onInterrupt = () => run.abort(new InterruptedError(undefined, typeof o.signal.reason === 'string' ? o.signal.reason : undefined));
  if (o.signal.aborted) onInterrupt();
  o.signal.addEventListener('abort', onInterrupt, { once: true });
  const deadline = new AbortController();
  if (Number.isFinite(o.overallMs)) {
    void clock.sleep(o.overallMs, deadline.signal).then(() => {
      if (deadline.signal.aborted) return;
      const doing = steps.open().map((id) => `${titles.get(id) ?? id}${steps.lastLine(id) ? `: ${steps.lastLine(id)}` : ''}`);
      const outage = outages.phrase(started);
      run.abort(new RunTimeoutError(
        `--timeout ${humanDuration(o.overallMs)} ran out${doing.length ? ` while waiting on ${doing.join('; ')}` : ''}${outage ? `; ${outage}` : ''}`,
        '', // stoppedRunError gives the advice for where the run stopped
      ));
    });
  }
  const signal = run.signal;
  emit({ type: 'plan', cluster: plan.cluster, command: plan.command, steps: planned, dryRun: plan.dryRun });
  outages.start();
  let result: RunResult;
  const summary: RunSummary = {};
  try {
    await runParts(plan.parts, { steps, emit, signal, outages, clock, summary });
    result = { ok: true, exitCode: ExitCode.ok, message: plan.done(summary) };
  } catch (e) {
    // Whatever a step threw once the run was stopped, the stop is what ended it; an interrupt a step words with what
    // it cut short (preflight: "while connecting to URL") is that same stop, said better.
    const said = e instanceof InterruptedError && abortError(signal) instanceof InterruptedError;
    const stop = signal.aborted && !said ? abortError(signal) : e;
    for (const id of steps.open()) steps.end(id, resultOf(stop), steps.lastLine(id) || (stop instanceof Error ? stop.message : String(stop)));
    const error = stoppedRunError(stop, { command: plan.command, dryRun: plan.dryRun, steps: ledger.report(), failed: summary.failedTiers ?? [] });
    result = { ok: false, exitCode: error instanceof CliError ? error.exitCode : ExitCode.failure, error, message: error instanceof Error ? error.message : String(error) };
  } finally {
    deadline.abort();
    o.signal.removeEventListener('abort', onInterrupt);
    outages.stop();
  }
  const err = result.error;
  emit({
    type: 'run-end',
    ok: result.ok,
    exitCode: result.exitCode,
    ...(err instanceof CliError ? { code: err.code } : err ? { code: 'INTERNAL' } : {}),
    durationMs: clock.now() - started,
    message: result.message,
    ...(err instanceof CliError && err.hint ? { hint: err.hint } : {}),
    api: { ...apiStats(o.client.stats(), clock.now()), ...traffic.result() },
    ...(summary.helmReleases && summary.helmReleases.requests > 0 ? { helmReleases: summary.helmReleases } : {}),
    steps: withWhyNotRun(ledger.report(), result),
  });
  return result;
}

/** A step the run never reached says why in its note ("with why", as README promises for not-run). */
function withWhyNotRun(steps: StepReport[], r: RunResult): StepReport[] {
  if (r.ok) return steps;
  const failed = steps.find((s) => s.result === 'failed');
  const why = resultOf(r.error) === 'interrupted' ? 'the run was interrupted before it'
    : resultOf(r.error) === 'timeout' ? 'the run timed out before it'
    : `the run stopped before it: ${failed ? `${failed.title} failed` : (r.message.split('\n')[0] ?? '')}`;
  return steps.map((s) => (s.result === 'not-run' && s.message === '' ? { ...s, message: `not run: ${why}` } : s));
}

/** API traffic between the first tier's start and the last tier's end: the cost of waiting on Flux. */
function tierTraffic(client: ClusterClient, clock: Clock) {
  let first: { at: number; st: RequestStats } | null = null;
  let last: { at: number; st: RequestStats } | null = null;
  return {
    see(e: RunEvent) {
      if ((e.type !== 'step-start' && e.type !== 'step-end') || parseStepId(e.id).kind !== 'tier') return;
      const now = { at: clock.now(), st: client.stats() };
      if (e.type === 'step-start') first ??= now;
      else last = now;
    },
    result(): { waiting?: ApiTraffic & { ms: number } } {
      if (!first || !last || last.at <= first.at) return {};
      const ms = last.at - first.at;
      const requests = last.st.requests - first.st.requests;
      return { waiting: { ms, requests, watches: last.st.watches - first.st.watches, perMinute: Math.round((requests / ms) * 60_000 * 10) / 10 } };
    },
  };
}

function apiStats(st: RequestStats, now: number) {
  return { requests: st.requests, watches: st.watches, relists: st.relists, perMinute: Math.round(requestsPerMinute(st, now) * 10) / 10 };
}
