import { CliError } from '../../model/errors.js';
import { addClusterFlags, RUN_TIMEOUT, type RunFlags } from '../cluster-flags.js';
import { CONNECT_HELP, EXIT_CODES_HELP, type CliCommand } from '../command.js';
import type { Io } from '../io.js';
import { flagsOf, outputFormat } from '../options.js';

const FORMATS = ['text', 'json', 'yaml'] as const;

export const resetCommand: CliCommand = {
  name: 'reset',
  formats: FORMATS,
  define: (command, cli) => addClusterFlags(command.description('tear a resettable cluster down in reverse tier order (then --up to stand it up again)'), RUN_TIMEOUT)
    .addHelpText('after', `
Only for clusters marked resettable: true in tiers.yaml, behind the context guard and a confirmation (answering
anything but y changes nothing and exits 4). Suspends the root sync, deletes every tier in reverse order waiting
for each finalizer (so prune completes), then for the Namespaces and CRDs prune deleted to be gone, so an up right
after does not meet them terminating. The root sync is left suspended, so Flux does not re-create what was
deleted: \`standup up\` (or --up) resumes it; \`standup resume\` takes back a suspension that reset made.
${CONNECT_HELP}
Examples:
  standup reset --dry-run                   what would be suspended and deleted, in order; nothing is deleted
  standup reset                             asks first; the cluster must be marked resettable: true in tiers.yaml
  standup reset --up --yes                  tear down and stand up again, without the question (a script, CI)
${EXIT_CODES_HELP}`)
    .option('--up', 'stand the cluster up again afterwards (the steps of `standup up`)')
    .option('-y, --yes', 'do not ask for confirmation')
    .option('--dry-run', 'print the teardown order, and write nothing')
    .option('--source-url <url>', 'with --up: sync from this mirror, as `up --source-url` does')
    .option('--force', 'with --up: go on although the static checks say the graph cannot converge')
    .option('--record <file>', 'write a JSON record of the run')
    .action(async (o, cmd) => cli.exit(await reset(flagsOf(o, cmd), cli.io))),
};

/** `standup reset [--up]`: ordered teardown of a resettable cluster, behind the guard and a confirmation. */
export async function reset(flags: RunFlags & { up?: boolean; yes?: boolean }, io: Io): Promise<number> {
  const format = outputFormat(flags.output, FORMATS, 'text');
  const [{ readRunTarget }, { withReporter }, { assertResettable, resetQuestion, runReset }, { contextRefusal }] = await Promise.all([
    import('../read-run-target.js'), import('../run-command.js'), import('../../runner/reset.js'), import('../../runner/preflight.js'),
  ]);
  const target = await readRunTarget(flags, { bootstrap: flags.up ? 'full' : 'none', checks: !!flags.up, fallback: flags.up ? 'apply' : 'diagnose', connectTimeout: io.env.STANDUP_CONNECT_TIMEOUT, env: io.env, session: io.loadSession });
  // Refuse and ask before anything is drawn: resettable, then the question, unless the guard will refuse the run.
  assertResettable(target);
  if (!flags.dryRun && !flags.yes && !contextRefusal(target)) {
    const question = resetQuestion(target);
    if (!io.ask) throw new CliError('CONFIRMATION_NEEDED', `${question} Refusing without a terminal to ask on.`, { hint: 'Pass --yes to confirm non-interactively.' });
    const answer = await io.ask(`${question} [y/N] `);
    if (answer === null) throw new CliError('INTERRUPTED', 'interrupted at the confirmation; nothing changed');
    if (!/^y(es)?$/i.test(answer.trim())) throw new CliError('RESET_DECLINED', 'reset not confirmed; nothing changed');
  }
  return withReporter(io, { format, record: flags.record }, (emit, signal) =>
    runReset(target, { emit, signal, dryRun: flags.dryRun, up: flags.up, sourceUrl: flags.sourceUrl, force: flags.force }),
  );
}
