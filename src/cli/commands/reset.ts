import { CliError, ExitCode } from '../../model/errors.js';
import { assertResettable, resetQuestion, runReset } from '../../runner/reset.js';
import { guard } from '../../runner/preflight.js';
import type { Io } from '../io.js';
import { outputFormat } from '../options.js';
import { withReporter } from '../run-command.js';
import { readRunTarget, type ClusterFlags } from '../run-inputs.js';

/** `standup reset [--up]`: ordered teardown of a resettable cluster, behind the guard and a confirmation. */
export async function reset(flags: ClusterFlags & { up?: boolean }, io: Io): Promise<number> {
  const format = outputFormat(flags.output, ['text', 'json', 'yaml'] as const, 'text');
  const target = await readRunTarget(flags, { bootstrap: flags.up ? 'full' : 'none', checks: !!flags.up, fallback: flags.up ? 'apply' : 'diagnose' });
  // Refuse and ask before anything is drawn: resettable, then the guard, then the question.
  assertResettable(target);
  guard(target);
  if (!flags.dryRun && !flags.yes) {
    const question = resetQuestion(target);
    if (!io.ask) {
      throw new CliError('CONFIRMATION_NEEDED', `${question} Refusing without a terminal to ask on.`, ExitCode.config, 'Pass --yes to confirm non-interactively.');
    }
    const answer = await io.ask(`${question} [y/N] `);
    if (answer === null) throw new CliError('INTERRUPTED', 'interrupted at the confirmation; nothing changed', ExitCode.interrupted);
    if (!/^y(es)?$/i.test(answer.trim())) throw new CliError('RESET_DECLINED', 'reset not confirmed; nothing changed', ExitCode.guard);
  }
  return withReporter(io, { format, record: flags.record }, (emit, signal) =>
    runReset(target, { emit, signal, dryRun: flags.dryRun, up: flags.up, sourceUrl: flags.sourceUrl, force: flags.force }),
  );
}
