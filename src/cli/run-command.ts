import { ExitCode } from '../model/errors.js';
import type { RunEvent } from '../runner/events.js';
import { NotConvergeableError } from '../runner/errors.js';
import type { RunResult } from '../runner/lifecycle.js';
import { jsonReporter } from '../ui/reporters/json.js';
import { liveReporter } from '../ui/reporters/live.js';
import { plainReporter } from '../ui/reporters/plain.js';
import { RecordCollector } from '../ui/reporters/record.js';
import { teeReporter, type Reporter } from '../ui/reporters/reporter.js';
import { renderSummary } from '../ui/reporters/summary.js';
import { renderProblemsText } from '../ui/problems-text.js';
import { inCI, type Io } from './io.js';
import type { DataFormat } from './options.js';

export type Format = 'text' | DataFormat;

/**
 * Runs a writing command under the right reporter (the live view on a terminal, plain lines in CI and pipes, one
 * document per event with -o json or -o yaml) with the --record file, Ctrl-C handling and the summary. The runner produces every event;
 * this only routes them. Rethrows the error that ended the run, for main to print last.
 */
export async function withReporter(io: Io, o: { format: Format; record?: string }, go: (emit: (e: RunEvent) => void, signal: AbortSignal) => Promise<RunResult>): Promise<number> {
  const record = new RecordCollector(o.record);
  const reporter = teeReporter(pickReporter(o.format, io), record);
  const controller = new AbortController();
  let interrupts = 0;
  const onSignal = () => {
    interrupts++;
    if (interrupts > 1) return io.exitNow?.(ExitCode.interrupted); // a second Ctrl-C means now
    controller.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  let result: RunResult;
  try {
    result = await go((e) => reporter.onEvent(e), controller.signal);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await reporter.close();
  }
  if (o.format === 'text') io.err('\n' + renderSummary(record.record(), io.errStyle));
  if (result.error instanceof NotConvergeableError) io.err('\n' + renderProblemsText([...result.error.problems], 1, io.errStyle));
  if (result.error) throw result.error;
  return ExitCode.ok;
}

function pickReporter(format: Format, io: Io): Reporter {
  if (format !== 'text') return jsonReporter(io.out, format);
  return io.errTerminal && !inCI(io.env) ? liveReporter({ write: io.err, ...io.errTerminal }, io.errStyle) : plainReporter(io.err, io.errStyle);
}
