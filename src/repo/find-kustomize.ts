// Which kustomize renders: the standalone binary on PATH, else `kubectl kustomize`. Both are the real kustomize that
// kustomize-controller embeds; standup never renders with anything else.
import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../model/errors.js';

export interface Kustomize {
  /** e.g. ['kustomize', 'build'] or ['kubectl', 'kustomize']. */
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

/** Finds kustomize on PATH: the standalone binary first, else `kubectl kustomize`. Throws ConfigError if neither. */
export function findKustomize(envPath?: string): Kustomize {
  const k = onPath('kustomize', envPath);
  if (k) return { command: [k, 'build'], display: 'kustomize build' };
  const kubectl = onPath('kubectl', envPath);
  if (kubectl) return { command: [kubectl, 'kustomize'], display: 'kubectl kustomize' };
  throw new ConfigError(
    'KUSTOMIZE_NOT_FOUND',
    'neither `kustomize` nor `kubectl` is on PATH; standup renders with the real kustomize',
    'Install kubectl (it bundles kustomize) or the kustomize binary, and make sure it is on PATH.',
  );
}
