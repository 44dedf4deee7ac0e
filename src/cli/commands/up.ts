import { runCommand, stepsFor, type RunMode } from '../../runner/run.js';
import type { ClusterFlags } from '../../runner/session.js';
import type { Io } from '../io.js';
import { withRun } from '../run-command.js';

/** `standup up`, `standup resume` and `standup crds`: the same runner, different steps. */
export function runMode(mode: RunMode) {
  return (flags: ClusterFlags, io: Io): Promise<number> =>
    withRun(flags, io, mode, async ({ session, emit, signal }) => {
      const outcomes = await runCommand(session, mode, { emit, signal, dryRun: flags.dryRun, sourceUrl: flags.sourceUrl });
      const skipped = outcomes.filter((o) => o.result === 'skipped').length;
      return { message: mode === 'crds' ? 'CRD fallback applied' : `${outcomes.length} Kustomizations Ready (${skipped} already were)` };
    }, (s) => stepsFor(s, mode));
}
