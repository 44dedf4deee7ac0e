// Which kustomize renders: the standalone binary on PATH, else `kubectl kustomize`. Both are the real kustomize that
// kustomize-controller embeds; standup never renders with anything else.
import { accessSync, constants } from 'node:fs';
import { devNull } from 'node:os';
import path from 'node:path';
import { ConfigError } from '../model/errors.js';

export interface Kustomize {
  /** e.g. ['kustomize', 'build'] or ['kubectl', 'kustomize', ...KUBECTL_OFFLINE]. */
  command: readonly [string, ...string[]];
  /** How to show it in messages. */
  display: string;
}

function onPath(name: string, envPath = process.env.PATH ?? ''): string | null {
  for (const dir of envPath.split(path.delimiter)) {
    if (!dir) continue;
    const p = path.join(dir, name);
    try {
      accessSync(p, constants.X_OK);
      return p;
    } catch {
      /* next */
    }
  }
  return null;
}

/**
 * Flags that keep `kubectl kustomize` from talking to any cluster. A build reads files only, but some kubectl on PATH
 * is a wrapper that asks the current context's API server for its version before every command, to run the kubectl
 * of that version (gcloud's kubectl-dispatcher, 5 s per call): against a server that accepts connections and never
 * answers, every kustomize process of a load waited 5 s, before anything was drawn, and which kustomize rendered
 * depended on the cluster. An empty kubeconfig and a context it cannot hold fail that question at once, with no
 * network (an empty kubeconfig alone falls back to localhost:8080). Both are kubectl's global flags, which
 * `kubectl kustomize` accepts and does not use.
 */
export const KUBECTL_OFFLINE = [`--kubeconfig=${devNull}`, '--context=standup-renders-offline'] as const;

/** Finds kustomize on PATH: the standalone binary first, else `kubectl kustomize`. Throws ConfigError if neither. */
export function findKustomize(envPath?: string): Kustomize {
  const k = onPath('kustomize', envPath);
  if (k) return { command: [k, 'build'], display: 'kustomize build' };
  const kubectl = onPath('kubectl', envPath);
  if (kubectl) return { command: [kubectl, 'kustomize', ...KUBECTL_OFFLINE], display: 'kubectl kustomize' };
  throw new ConfigError(
    'KUSTOMIZE_NOT_FOUND',
    'neither `kustomize` nor `kubectl` is on PATH; standup renders with the real kustomize',
    'Install kubectl (it bundles kustomize) or the kustomize binary, and make sure it is on PATH.',
  );
}
