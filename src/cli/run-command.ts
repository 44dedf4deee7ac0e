import { requestsPerMinute, type RequestStats } from '../cluster/client.js';
import { CliError, ExitCode } from '../model/errors.js';
import type { ApiTraffic, RunEvent } from '../runner/events.js';
import { openSession, type ClusterFlags, type Session } from '../runner/session.js';
import { jsonReporter } from '../ui/reporters/json.js';
import { listrReporter } from '../ui/reporters/listr.js';
import { plainReporter } from '../ui/reporters/plain.js';
import { RecordCollector } from '../ui/reporters/record.js';
import { teeReporter, type Reporter } from '../ui/reporters/reporter.js';
import { renderSummary } from '../ui/reporters/summary.js';
import type { Io } from './io.js';
import { outputFormat, type DataFormat } from './options.js';

export interface RunContext {
  session: Session;
  emit: (e: RunEvent) => void;
  signal: AbortSignal;
}

/**
 * Runs a writing command with the right reporter (listr2 on a terminal, plain lines in CI and pipes, JSON events
 * with -o json), the --record file, Ctrl-C handling and the summary. Rethrows the error that ended the run.
 */
export async function withRun(
  flags: ClusterFlags,
  io: Io,
  command: string,
  body: (rc: RunContext) => Promise<{ message: string }>,
  steps: (s: Session) => import('../runner/events.js').StepInfo[],
  /** Runs before anything is drawn: checks and questions that must not race the live task list. */
  prepare?: (s: Session) => Promise<void>,
): Promise<number> {
  const format = outputFormat(flags.output, ['text', 'json', 'yaml'] as const, 'text');
  const session = await openSession(flags);
  if (prepare) await prepare(session);
  const screen = pickReporter(format, io);
  const record = new RecordCollector(flags.record);
  const reporter = teeReporter(screen, record);
  const controller = new AbortController();
  let interrupts = 0;
  const onSignal = () => {
    interrupts++;
    if (interrupts > 1) return io.exitNow?.(ExitCode.interrupted); // a second Ctrl-C means now
    controller.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const started = Date.now();
  const waiting = tierTraffic(session);
  let failure: unknown;
  let message = '';
  reporter.onEvent({ type: 'plan', cluster: session.name, command, steps: steps(session), dryRun: !!flags.dryRun });
  try {
    message = (await body({ session, emit: (e) => (waiting.see(e), reporter.onEvent(e)), signal: controller.signal })).message;
  } catch (e) {
    failure = e;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  const exitCode = failure instanceof CliError ? failure.exitCode : failure ? ExitCode.failure : ExitCode.ok;
  reporter.onEvent({
    type: 'run-end',
    ok: !failure,
    exitCode,
    durationMs: Date.now() - started,
    message: failure instanceof Error ? failure.message : message,
    ...(failure instanceof CliError && failure.hint ? { hint: failure.hint } : {}),
    api: { ...apiStats(session), ...waiting.result() },
  });
  await reporter.close();
  if (format === 'text') io.err('\n' + renderSummary(record.record(), io.errStyle));
  if (failure) throw failure;
  return ExitCode.ok;
}

/** API traffic between the first tier's start and the last tier's end: the cost of waiting on Flux. */
function tierTraffic(s: Session) {
  let first: { at: number; st: RequestStats } | null = null;
  let last: { at: number; st: RequestStats } | null = null;
  return {
    see(e: RunEvent) {
      if ((e.type !== 'step-start' && e.type !== 'step-end') || !e.id.startsWith('tier:')) return;
      const now = { at: Date.now(), st: s.client.stats() };
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

function apiStats(s: Session) {
  const st = s.client.stats();
  return { requests: st.requests, watches: st.watches, relists: st.relists, perMinute: Math.round(requestsPerMinute(st) * 10) / 10 };
}

function pickReporter(format: 'text' | DataFormat, io: Io): Reporter {
  if (format !== 'text') return jsonReporter(io.out, format);
  const ci = !!io.env.CI && io.env.CI !== 'false';
  return io.isTTY && !ci ? listrReporter() : plainReporter(io.err, io.errStyle);
}
