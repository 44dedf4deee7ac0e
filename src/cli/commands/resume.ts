import { addClusterFlags, RUN_TIMEOUT } from '../cluster-flags.js';
import { CONNECT_HELP, EXIT_CODES_HELP, type CliCommand } from '../command.js';
import { flagsOf } from '../options.js';

const FORMATS = ['text', 'json', 'yaml'] as const;

/**
 * `standup resume`: continues a stuck cold start. Runs check's rules first; reads the bootstrap only when tiers.yaml
 * installs Flux from the repository (to finish a sync an interrupted up never applied); the CRD fallback only to
 * diagnose a deadlock.
 */
export const resumeCommand: CliCommand = {
  name: 'resume',
  formats: FORMATS,
  define: (command, cli) => addClusterFlags(command.description('continue a stuck cold start from the first unready tier'), RUN_TIMEOUT)
    .addHelpText('after', `
Reads live status, skips every tier already Ready at the source's current revision, and waits on the rest in
order, requesting reconciles as dependencies become Ready. A tier stuck on a missing CRD is diagnosed: the
second-order CRD deadlock (with the fallback that unblocks it), or a kind no CRD and no operator provides.
A root sync that \`standup reset\` suspended is resumed; one suspended by hand is reported, not touched.
After an up that installs Flux was stopped before the sync, resume waits for the controllers and applies the sync,
from the mirror that \`up --source-url\` recorded in the cluster, if it did.
${CONNECT_HELP}
Examples:
  standup resume
  standup resume -o json | jq -c 'select(.type=="step-end")'
${EXIT_CODES_HELP}`)
    .option('--dry-run', 'print what would be annotated, and write nothing')
    .option('--force', 'go on although the static checks say the graph cannot converge')
    .option('--record <file>', 'write a JSON record of the run for a post-mortem')
    .action(async (o, cmd) => {
      const { runMode } = await import('../run-command.js');
      cli.exit(await runMode('resume', { bootstrap: 'resume', checks: true, fallback: 'diagnose' }, FORMATS, flagsOf(o, cmd), cli.io));
    }),
};
