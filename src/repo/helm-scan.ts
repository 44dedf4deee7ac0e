// For `plan -o json`'s implicitDependsOn (scope 'graph'): which leaf tiers to build after all, found from their
// files as flux-scan.ts finds Flux Kustomizations. First the tiers whose files may hold a HelmRelease with
// spec.dependsOn, then, once those are built, the tiers whose files may hold one of the HelmReleases depended on.
// A file test says "maybe" generously (any mention; a name still holding a ${variable}); where the files cannot
// tell (a remote base, a Helm chart, a plugin) the answer is no: plan fetches nothing to find such orders, and
// `check`, which builds every tier, still reports them.
import type { ScanQuestion } from './flux-scan.js';

const HELM_API = 'helm.toolkit.fluxcd.io';

/** A file that may hold a HelmRelease with spec.dependsOn. */
export const HELM_DEPENDS_ON: ScanQuestion = {
  test: (text) => text.includes(HELM_API) && /^\s*dependsOn\s*:/m.test(text),
  doubt: false,
};

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A file that may hold a HelmRelease named one of `names` (or named through a variable substitution fills in). */
export function helmReleaseNamed(names: Iterable<string>): ScanQuestion {
  const alternatives = [...new Set(names)].map(escape).join('|');
  const named = new RegExp(`^\\s*name\\s*:\\s*["']?(?:${alternatives})["']?\\s*(?:#.*)?$`, 'm');
  const variable = /^\s*name\s*:.*\$\{/m;
  return { test: (text) => text.includes(HELM_API) && (named.test(text) || variable.test(text)), doubt: false };
}
