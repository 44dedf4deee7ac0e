import type { Command, OptionValues } from '@commander-js/extra-typings';
import type { GlobalOptions } from './options.js';

/** Flags of the commands that talk to a cluster (they follow kubectl and flux). */
export interface ClusterFlags extends GlobalOptions {
  kubeconfig?: string;
  context?: string;
  /** The whole run's deadline; for status, how long to wait for the API server. */
  timeout?: string;
}

/** Flags of the commands that write to a cluster: up, resume, crds, reset. */
export interface RunFlags extends ClusterFlags {
  dryRun?: boolean;
  record?: string;
  sourceUrl?: string;
  force?: boolean;
}

export const RUN_TIMEOUT = 'give up after this long overall (a positive duration, e.g. 30m); each tier also has its own timeout in tiers.yaml';

/** Adds --kubeconfig, --context and --timeout (whose meaning each command says) to a command that talks to a cluster. */
export function addClusterFlags<A extends unknown[], O extends OptionValues, G extends OptionValues>(command: Command<A, O, G>, timeout: string) {
  return command
    .option('--kubeconfig <file>', 'kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)')
    .option('--context <name>', 'kube context to use (must match the cluster\'s context in tiers.yaml)')
    .option('--timeout <duration>', timeout);
}
