import type { Command, OptionValues } from '@commander-js/extra-typings';
import { ConfigError } from '../model/errors.js';
import type { Selection } from '../plan/select.js';
import type { Io } from './io.js';

/**
 * The flags every read command that lists Kustomizations takes, as kubectl and flux select objects: positional
 * NAMEs (`name` or `namespace/name`), `-n NAMESPACE`, `-A` (every namespace, the default) and `--no-header`.
 */
export interface SelectionFlags {
  namespace?: string;
  allNamespaces?: boolean;
  /** Positional Kustomization names (`name` or `namespace/name`). */
  names?: string[];
  /** commander's --no-header: false when given. */
  header?: boolean;
}

/**
 * Adds -n, -A and --no-header to a command (each command adds its `[names...]` argument itself, before this, so
 * commander hands the names to its action first). `header` says what --no-header leaves out of that command.
 */
export function addSelectionFlags<A extends unknown[], O extends OptionValues, G extends OptionValues>(command: Command<A, O, G>, header: string) {
  return command
    .option('-n, --namespace <namespace>', 'only Kustomizations in this namespace (default: every namespace)')
    .option('-A, --all-namespaces', 'every namespace (the default; accepted as kubectl and flux take it)')
    .option('--no-header', header);
}

export const NAMES_ARGUMENT = 'only these Kustomizations (NAME or NAMESPACE/NAME)';

/** `-n`, `-A` and names as one selection; `-n` with `-A` is a contradiction, as in kubectl. */
export function selectionOf(o: SelectionFlags): Selection {
  if (o.namespace !== undefined && o.allNamespaces) {
    throw new ConfigError('BAD_FLAG', '-n/--namespace and -A/--all-namespaces contradict each other', 'Pass one of them (no -n means every namespace).');
  }
  const names = o.names ?? [];
  const bad = names.filter((n) => !/^[a-z0-9.-]+(\/[a-z0-9.-]+)?$/.test(n));
  if (bad.length) {
    throw new ConfigError('BAD_ARGUMENT', `not a Kustomization name: ${bad.map((n) => JSON.stringify(n)).join(', ')}`, 'Pass NAME or NAMESPACE/NAME, as in `standup plan flux-system/flux-system`.');
  }
  return { namespace: o.namespace, names };
}

/**
 * Every name must match in at least one of the clusters read (`keysByCluster`: each one's Kustomization keys); the
 * error lists every name that did not, with close names. `command` is what the hint tells to run without names. An
 * `-n` that no cluster has is no error (an empty list, as kubectl prints none), but stderr says which namespaces
 * have Kustomizations, so a typo is not mistaken for a clean result.
 */
export async function requireNames(keysByCluster: readonly (readonly string[])[], clusterNames: readonly string[], s: Selection, command: string, io: Io): Promise<void> {
  const { namespacesOf, unmatchedNames } = await import('../plan/select.js');
  const namespaces = namespacesOf(keysByCluster.flat());
  if (s.namespace !== undefined && s.names.length === 0 && !namespaces.includes(s.namespace)) {
    io.err(`${io.errStyle.yellow('!')} no Kustomization in namespace ${s.namespace}; namespaces with Kustomizations: ${namespaces.join(', ') || 'none'}\n`);
  }
  const { missing, near } = unmatchedNames(keysByCluster, s);
  if (missing.length === 0) return;
  const where = s.namespace !== undefined ? ` in namespace ${s.namespace}` : '';
  const clusters = `${clusterNames.length === 1 ? 'cluster' : 'clusters'} ${clusterNames.join(', ')}`;
  throw new ConfigError('KUSTOMIZATION_NOT_FOUND', `no Kustomization ${missing.join(', ')}${where} in ${clusters}`,
    near.length ? `Did you mean ${near.join(', ')}? (\`standup ${command}\` lists them all)` : `Run \`standup ${command}\` (without names) to list them all.`);
}
