// Which helm renders a flux-operator chart named in tiers.yaml (bootstrap.install.operator or .path): STANDUP_HELM when
// set, else `helm` on PATH. Like kustomize (src/repo/find-kustomize.ts), standup renders with the real tool only.
import { accessSync, constants } from 'node:fs';
import path from 'node:path';

/** The helm binary's path, or null when there is none (the caller says what to do: it knows the chart and the line). */
export function findHelm(env: NodeJS.ProcessEnv = process.env): string | null {
  const set = env.STANDUP_HELM;
  // An explicit STANDUP_HELM that is not executable is not silently replaced by another helm on PATH.
  if (set) return executable(set) ? path.resolve(set) : null;
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const p = path.join(dir, 'helm');
    if (executable(p)) return p;
  }
  return null;
}

function executable(p: string): boolean {
  try {
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
