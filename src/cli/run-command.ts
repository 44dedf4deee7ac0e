import { ExitCode } from '../model/errors.js';
import type { RunEvent } from '../runner/events.js';
import type { RunResult } from '../runner/lifecycle.js';
import { run, type RunMode } from '../runner/run.js';
import { jsonReporter } from '../ui/reporters/json.js';
import { liveReporter } from '../ui/reporters/live.js';
import { plainReporter } from '../ui/reporters/plain.js';
import { RecordCollector } from '../ui/reporters/record.js';
import { teeReporter, type Reporter } from '../ui/reporters/reporter.js';
import { endOfRunReporter } from '../ui/reporters/summary.js';
import type { RunFlags } from './cluster-flags.js';
import { inCI, type Io } from './io.js';
import { outputFormat, type DataFormat } from './options.js';
import { readRunTarget, type ReadNeeds } from './read-run-target.js';

export type Format = 'text' | DataFormat;

/**
 * Runs a writing command under the right reporter (the live view on a terminal, plain lines in CI and pipes, one
 * document per event with -o json or -o yaml) with the --record file, Ctrl-C handling and the summary. The runner produces every event;
 * this only routes them. Rethrows the error that ended the run, for main to print last.
 */
export async function withReporter(io: Io, o: { format: Format; record?: string }, go: (emit: (e: RunEvent) => void, signal: AbortSignal) => Promise<RunResult>): Promise<number> {
  const record = new RecordCollector(o.record);
  const reporter = teeReporter(pickReporter(o.format, io), endOfRunReporter(io.err, io.errStyle, { table: o.format === 'text', ...(io.errTerminal ? { columns: io.errTerminal.columns } : {}) }), record);
  const controller = new AbortController();
  let interrupts = 0;
  const onSignal = () => {
    interrupts++;
    if (interrupts > 1) return io.exitNow?.(ExitCode.interrupted); // a second Ctrl-C means now
    controller.abort();
  };
  const unhook = io.onSignal?.(['SIGINT', 'SIGTERM'], onSignal);
  // Nobody reads the output any more: the run stops as on Ctrl-C (run-end in the record, the summary on the other stream).
  const unhookClosed = io.onOutputClosed?.((stream) => controller.abort(`${stream} was closed (the program reading it exited)`));
  let result: RunResult;
  try {
    result = await go((e) => reporter.onEvent(e), controller.signal);
  } finally {
    // Ctrl-C while the summary is written finds the run over: the summary is finished and the run's result stands.
    await reporter.close();
    unhook?.();
    unhookClosed?.();
  }
  if (result.error) throw result.error;
  return ExitCode.ok;
}

/** `standup up`, `standup resume` and `standup crds`: the same runner, different steps; `needs` is what each reads first. */
export async function runMode(mode: RunMode, needs: Omit<ReadNeeds, 'env'>, formats: readonly Format[], flags: RunFlags, io: Io): Promise<number> {
  const format = outputFormat(flags.output, formats, 'text');
  const target = await readRunTarget(flags, { ...needs, preflight: true, connectTimeout: io.env.STANDUP_CONNECT_TIMEOUT, env: io.env, session: io.loadSession });
  try {
    return await withReporter(io, { format, record: flags.record }, (emit, signal) =>
      run(target, mode, { emit, signal, dryRun: flags.dryRun, sourceUrl: flags.sourceUrl, force: flags.force }),
    );
  } finally {
    target.client.close?.();
  }
}

function pickReporter(format: Format, io: Io): Reporter {
  if (format !== 'text') return jsonReporter(io.out, format);
  return io.errTerminal && !inCI(io.env) ? liveReporter({ write: io.err, ...io.errTerminal }, io.errStyle) : plainReporter(io.err, io.errStyle);
}
