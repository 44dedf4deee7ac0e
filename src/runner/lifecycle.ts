import { requestsPerMinute, type ClusterClient, type RequestStats } from '../cluster/client.js';
import { CliError, ExitCode } from '../model/errors.js';
import { humanDuration } from '../status/durations.js';
import { abortError, InterruptedError, RunTimeoutError } from './errors.js';
import type { ApiTraffic, Emit, HelmReleaseRequests, RunEvent, StepInfo } from './events.js';
import { OutageLog } from './outages.js';
import { resultOf, StepTracker } from './steps.js';

/** What a step body gets: the one step tracker, the run's signal (Ctrl-C and --timeout), the outage log. */
export interface RunScope {
  steps: StepTracker;
  emit: Emit;
  signal: AbortSignal;
  outages: OutageLog;
  /** Counts the body leaves for run-end, however the run ends. */
  summary: RunSummary;
}

export interface RunSummary {
  helmReleases?: HelmReleaseRequests;
}

export interface RunResult {
  ok: boolean;
  exitCode: number;
  /** The error that ended the run (its message and hint are what the CLI prints last). */
  error?: unknown;
  message: string;
}

export interface DriveOptions {
  cluster: string;
  command: string;
  steps: StepInfo[];
  dryRun: boolean;
  client: ClusterClient;
  emit: Emit;
  /** Aborted by Ctrl-C / SIGTERM. */
  signal: AbortSignal;
  /** --timeout, in ms (Infinity: none). */
  overallMs: number;
  /** What to do after an interrupt (resume finishes `up`; reset has its own advice). */
  interruptedHint?: string;
}

/**
 * Runs a command's steps between its `plan` and `run-end` events: the runner owns the whole stream. Whatever ends the
 * run (success, a failed step, Ctrl-C, --timeout), every started step ends with what it was doing, run-end carries the
 * error's code and exit code, and the result says how the process should exit. Never throws.
 */
export async function drive(o: DriveOptions, body: (scope: RunScope) => Promise<string>): Promise<RunResult> {
  const started = Date.now();
  const traffic = tierTraffic(o.client);
  const emit: Emit = (e) => {
    traffic.see(e);
    o.emit(e);
  };
  const steps = new StepTracker(emit);
  const outages = new OutageLog(o.client, emit);
  // One signal for the run, aborted with the reason every waiter then throws: Ctrl-C, or the --timeout (worded at
  // the moment it fires, while the steps it cut short are still open).
  const run = new AbortController();
  const onInterrupt = () => run.abort(new InterruptedError(o.interruptedHint));
  if (o.signal.aborted) onInterrupt();
  o.signal.addEventListener('abort', onInterrupt, { once: true });
  const deadline = Number.isFinite(o.overallMs)
    ? setTimeout(() => {
        const doing = steps.open().map((id) => `${id}${steps.lastLine(id) ? `: ${steps.lastLine(id)}` : ''}`);
        const outage = outages.phrase(started);
        run.abort(new RunTimeoutError(
          `--timeout ${humanDuration(o.overallMs)} ran out${doing.length ? ` while waiting on ${doing.join('; ')}` : ''}${outage ? `; ${outage}` : ''}`,
          o.interruptedHint ?? 'Run `standup resume` to continue from the first unready tier (with a longer --timeout, or none).',
        ));
      }, o.overallMs)
    : undefined;
  const signal = run.signal;
  emit({ type: 'plan', cluster: o.cluster, command: o.command, steps: o.steps, dryRun: o.dryRun });
  outages.start();
  let result: RunResult;
  const summary: RunSummary = {};
  try {
    result = { ok: true, exitCode: ExitCode.ok, message: await body({ steps, emit, signal, outages, summary }) };
  } catch (e) {
    // Whatever a step threw once the run was stopped, the stop is what ended it.
    const error = signal.aborted ? abortError(signal) : e;
    for (const id of steps.open()) steps.end(id, resultOf(error), steps.lastLine(id) || (error instanceof Error ? error.message : String(error)));
    result = { ok: false, exitCode: error instanceof CliError ? error.exitCode : ExitCode.failure, error, message: error instanceof Error ? error.message : String(error) };
  } finally {
    clearTimeout(deadline);
    o.signal.removeEventListener('abort', onInterrupt);
    outages.stop();
  }
  const err = result.error;
  emit({
    type: 'run-end',
    ok: result.ok,
    exitCode: result.exitCode,
    ...(err instanceof CliError ? { code: err.code } : err ? { code: 'INTERNAL' } : {}),
    durationMs: Date.now() - started,
    message: result.message,
    ...(err instanceof CliError && err.hint ? { hint: err.hint } : {}),
    api: { ...apiStats(o.client.stats()), ...traffic.result() },
    ...(summary.helmReleases && summary.helmReleases.requests > 0 ? { helmReleases: summary.helmReleases } : {}),
  });
  return result;
}

/** API traffic between the first tier's start and the last tier's end: the cost of waiting on Flux. */
function tierTraffic(client: ClusterClient) {
  let first: { at: number; st: RequestStats } | null = null;
  let last: { at: number; st: RequestStats } | null = null;
  return {
    see(e: RunEvent) {
      if ((e.type !== 'step-start' && e.type !== 'step-end') || !e.id.startsWith('tier:')) return;
      const now = { at: Date.now(), st: client.stats() };
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

function apiStats(st: RequestStats) {
  return { requests: st.requests, watches: st.watches, relists: st.relists, perMinute: Math.round(requestsPerMinute(st) * 10) / 10 };
}
