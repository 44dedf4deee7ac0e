import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { KubeConfig, type Cluster, type Context, type User } from '@kubernetes/client-node';
import { ConfigError } from '../model/errors.js';

export interface KubeconfigOptions {
  /** `--kubeconfig`: this file only, as kubectl does. */
  kubeconfig?: string;
  /** `--context`: must name a context in the loaded files. */
  context?: string;
  /** For tests; default process.env. */
  env?: Record<string, string | undefined>;
  /** For tests; default os.homedir(). */
  home?: string;
}

export interface LoadedKubeconfig {
  kc: KubeConfig;
  /** The context in use (the `--context`, else the current-context). */
  context: string;
  /** Its cluster's API server URL. */
  server: string;
  /** Its default namespace (`default` when unset). */
  namespace: string;
  /** The files read, in precedence order; empty for in-cluster config. */
  files: string[];
}

const NONE_HINT = 'set KUBECONFIG or pass --kubeconfig';

/**
 * Loads kubeconfig with kubectl's precedence: `--kubeconfig`, else every file in `KUBECONFIG` merged with the first
 * definition of a name winning and the first non-empty current-context winning, else ~/.kube/config, else the
 * in-cluster service account. Never falls back to client-node's silent `http://localhost:8080`: no kubeconfig is a
 * ConfigError, and so is an unknown `--context` (listing the available ones).
 */
export function loadKubeconfig(o: KubeconfigOptions = {}): LoadedKubeconfig {
  const env = o.env ?? process.env;
  const kc = new KubeConfig();
  let files: string[];
  if (o.kubeconfig) {
    if (!existsSync(o.kubeconfig)) throw new ConfigError('KUBECONFIG_MISSING', `kubeconfig ${o.kubeconfig} does not exist`, 'Pass --kubeconfig with an existing file, or leave it out to use $KUBECONFIG, then ~/.kube/config.');
    files = [o.kubeconfig];
  } else if (env.KUBECONFIG) {
    // kubectl skips KUBECONFIG entries that do not exist; client-node would throw ENOENT on them.
    files = env.KUBECONFIG.split(delimiter).filter((f) => f && existsSync(f));
  } else {
    const def = join(o.home ?? homedir(), '.kube', 'config');
    files = existsSync(def) ? [def] : [];
  }
  if (files.length > 0) mergeFiles(kc, files);
  else if (!o.kubeconfig && env.KUBERNETES_SERVICE_HOST && existsSync('/var/run/secrets/kubernetes.io/serviceaccount/token')) {
    kc.loadFromCluster();
  } else {
    throw new ConfigError('KUBECONFIG_NONE', `no kubeconfig found; ${NONE_HINT}`, env.KUBECONFIG ? `KUBECONFIG=${env.KUBECONFIG} names no existing file` : undefined);
  }

  const names = kc.getContexts().map((c) => c.name);
  const available = names.length ? names.join(', ') : '(none)';
  if (kc.getClusters().length === 0 || names.length === 0) {
    throw new ConfigError('KUBECONFIG_EMPTY', `no kubeconfig found; ${NONE_HINT} (${files.join(', ')} defines no ${kc.getClusters().length ? 'contexts' : 'clusters'})`);
  }
  if (o.context) {
    if (!kc.getContextObject(o.context)) {
      throw new ConfigError('CONTEXT_UNKNOWN', `context "${o.context}" not found in ${describe(files)}; available: ${available}`, 'Pass --context with one of those, or set the cluster\'s context in tiers.yaml to it.');
    }
    kc.setCurrentContext(o.context); // before any makeApiClient: the server URL is bound at creation
  }
  const context = kc.getCurrentContext();
  if (!context) {
    throw new ConfigError('CONTEXT_NONE', `${describe(files)} sets no current-context; pass --context (available: ${available})`);
  }
  const ctx = kc.getContextObject(context);
  if (!ctx) throw new ConfigError('CONTEXT_UNKNOWN', `current-context "${context}" is not defined in ${describe(files)}; available: ${available}`);
  const cluster = kc.getCurrentCluster();
  if (!cluster?.server) {
    throw new ConfigError('CLUSTER_UNKNOWN', `context "${context}" names cluster "${ctx.cluster}", which ${describe(files)} does not define`);
  }
  return { kc, context, server: cluster.server, namespace: ctx.namespace ?? 'default', files };
}

const describe = (files: string[]): string => (files.length === 0 ? 'in-cluster config' : files.length === 1 ? files[0]! : `KUBECONFIG (${files.join(', ')})`);

// kubectl's merge: the first file to define a name wins, and the first non-empty current-context wins.
// client-node's mergeConfig throws on duplicate names instead.
function mergeFiles(kc: KubeConfig, files: string[]): void {
  const clusters = new Map<string, Cluster>();
  const users = new Map<string, User>();
  const contexts = new Map<string, Context>();
  let currentContext = '';
  for (const f of files) {
    const one = new KubeConfig();
    try {
      one.loadFromFile(f); // also makes cert/key paths absolute relative to the file
    } catch (e) {
      // client-node's own message for an empty or non-kubeconfig file is a TypeError about `clusters`.
      const why = e instanceof TypeError ? 'it is empty or not a kubeconfig' : e instanceof Error ? e.message : String(e);
      throw new ConfigError('KUBECONFIG_INVALID', `cannot read kubeconfig ${f}: ${why}`, 'Point --kubeconfig (or KUBECONFIG) at a kubeconfig file, e.g. ~/.kube/config.', { cause: e });
    }
    for (const c of one.getClusters()) if (!clusters.has(c.name)) clusters.set(c.name, c);
    for (const u of one.getUsers()) if (!users.has(u.name)) users.set(u.name, u);
    for (const c of one.getContexts()) if (!contexts.has(c.name)) contexts.set(c.name, c);
    if (!currentContext && one.getCurrentContext()) currentContext = one.getCurrentContext();
  }
  kc.loadFromOptions({ clusters: [...clusters.values()], users: [...users.values()], contexts: [...contexts.values()], currentContext });
}
