import { run, type RunMode } from '../../runner/run.js';
import type { Io } from '../io.js';
import { outputFormat } from '../options.js';
import { withReporter } from '../run-command.js';
import { readRunTarget, type ClusterFlags } from '../run-inputs.js';

/** `standup up`, `standup resume` and `standup crds`: the same runner, different steps. */
export function runMode(mode: RunMode) {
  return async (flags: ClusterFlags, io: Io): Promise<number> => {
    const format = outputFormat(flags.output, ['text', 'json', 'yaml'] as const, 'text');
    const target = await readRunTarget(flags, {
      bootstrap: mode === 'up' ? 'full' : mode === 'resume' ? 'resume' : 'none',
      checks: mode !== 'crds',
      fallback: mode === 'resume' ? 'diagnose' : 'apply',
    });
    return withReporter(io, { format, record: flags.record }, (emit, signal) =>
      run(target, mode, { emit, signal, dryRun: flags.dryRun, sourceUrl: flags.sourceUrl, force: flags.force }),
    );
  };
}
