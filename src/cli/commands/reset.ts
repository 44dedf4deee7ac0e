import { createInterface } from 'node:readline/promises';
import { CliError, ExitCode } from '../../model/errors.js';
import { assertResettable, resetQuestion, resetSteps, runReset } from '../../runner/reset.js';
import type { ClusterFlags } from '../../runner/session.js';
import type { Io } from '../io.js';
import { withRun } from '../run-command.js';

/** `standup reset [--up]`: ordered teardown of a resettable cluster, behind the guard and a confirmation. */
export function reset(flags: ClusterFlags & { up?: boolean }, io: Io): Promise<number> {
  const confirm = async (question: string): Promise<boolean> => {
    if (flags.yes) return true;
    if (!process.stdin.isTTY) {
      throw new CliError('CONFIRMATION_NEEDED', `${question} Refusing without a terminal to ask on.`, ExitCode.config, 'Pass --yes to confirm non-interactively.');
    }
    const rl = createInterface({ input: process.stdin, output: process.stderr });
    try {
      return /^y(es)?$/i.test((await rl.question(`${question} [y/N] `)).trim());
    } finally {
      rl.close();
    }
  };
  return withRun(flags, io, flags.up ? 'reset --up' : 'reset', async ({ session, emit, signal }) => {
    const out = await runReset(session, { emit, signal, dryRun: flags.dryRun, up: flags.up });
    return { message: flags.up ? `reset and stood up again: ${out.length} Kustomizations Ready` : 'reset done' };
  }, (s) => resetSteps(s, !!flags.up), async (s) => {
    // Refuse and ask before the task list draws: resettable, then the guard, then the question.
    assertResettable(s);
    s.guard();
    if (!flags.dryRun && !(await confirm(resetQuestion(s)))) {
      throw new CliError('RESET_DECLINED', 'reset cancelled; nothing was changed', ExitCode.failure);
    }
  });
}
