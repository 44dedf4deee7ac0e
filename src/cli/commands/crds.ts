import { addClusterFlags, RUN_TIMEOUT } from '../cluster-flags.js';
import { CONNECT_HELP, EXIT_CODES_HELP, type CliCommand } from '../command.js';
import { flagsOf } from '../options.js';

const FORMATS = ['text', 'json', 'yaml'] as const;

/** `standup crds`: applies the CRD fallback alone; no bootstrap, no checks. */
export const crdsCommand: CliCommand = {
  name: 'crds',
  formats: FORMATS,
  define: (command, cli) => addClusterFlags(command.description('apply the CRD fallback from tiers.yaml (server-side, idempotent) and wait for Established'), RUN_TIMEOUT)
    .addHelpText('after', `
Use it to unstick a cluster deadlocked on a CRD that an operator creates at runtime, then run \`standup resume\`.
A second run reports every object unchanged and writes nothing.
${CONNECT_HELP}
Examples:
  standup crds --dry-run                    what the fallback would create or change; nothing is written
  standup crds && standup resume            unstick a cold start stuck on a CRD an operator creates
${EXIT_CODES_HELP}`)
    .option('--dry-run', 'server-side dry-run: print what would change, write nothing')
    .option('--record <file>', 'write a JSON record of the run')
    .action(async (o, cmd) => {
      const { runMode } = await import('../run-command.js');
      cli.exit(await runMode('crds', { bootstrap: 'none', checks: false, fallback: 'apply' }, FORMATS, flagsOf(o, cmd), cli.io));
    }),
};
