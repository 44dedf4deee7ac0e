// Scope 'graph' (plan, graph) puts off leaf tiers; these questions say which of them to build after all, from their
// files, as tier-file-scan.ts finds Flux Kustomizations. For `plan -o json`'s implicitDependsOn: first the tiers whose
// files may hold a HelmRelease with spec.dependsOn (or a patch that may add one), then, once those are built, the
// tiers whose files may hold a HelmRelease depended on; where the files cannot tell (a remote base, a Helm chart, a
// plugin) the answer is no: plan fetches nothing to find such orders, and `check`, which builds every tier, still
// reports them. For a postBuild substituteFrom source: the tiers that may hold that ConfigMap or Secret (here doubt
// means yes, as a missing source changes the graph). A file test says "maybe" generously (any mention, a name still
// holding a ${variable}).
import type { ScanQuestion } from './tier-file-scan.js';

const HELM_API = 'helm.toolkit.fluxcd.io';

/**
 * A file that may hold a HelmRelease with a spec.dependsOn that is not empty: a block list (`dependsOn:` ending its
 * line) or a flow list with an item. `dependsOn: []`, which app templates write by the hundred, depends on nothing.
 */
export const HELM_DEPENDS_ON: ScanQuestion = {
  test: (text) => text.includes(HELM_API) && /^[ \t]*dependsOn[ \t]*:[ \t]*(?:#.*)?$|^[ \t]*dependsOn[ \t]*:[ \t]*[^\s#[]|^[ \t]*dependsOn[ \t]*:[ \t]*\[[ \t]*[^\s\]]/m.test(text),
  doubt: false,
  // A component or overlay may add the dependsOn with a patch (`op: add, path: /spec/dependsOn/-`).
  patch: (text) => /dependsOn/.test(text),
};

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A `name:` line naming one of `names` (quoted, after a YAML anchor), or one still holding a ${variable}. */
function nameLine(names: Iterable<string>): (text: string) => boolean {
  const alternatives = [...new Set(names)].map(escape).join('|');
  const named = new RegExp(`^\\s*name\\s*:\\s*(?:&\\S+\\s+)?["']?(?:${alternatives})["']?\\s*(?:#.*)?$`, 'm');
  const variable = /^\s*name\s*:.*\$\{/m;
  return (text) => named.test(text) || variable.test(text);
}

/**
 * A file that may hold a HelmRelease named one of `names` (or named through a variable substitution fills in); a
 * kustomization with namePrefix or nameSuffix renames what it holds, so any HelmRelease under it may be one.
 */
export function helmReleaseNamed(names: Iterable<string>): ScanQuestion {
  const named = nameLine(names);
  return {
    test: (text) => text.includes(HELM_API) && named(text),
    doubt: false,
    kustomization: (k) => k.namePrefix !== undefined || k.nameSuffix !== undefined,
  };
}

/**
 * For a postBuild substituteFrom lookup: a file that may hold a ConfigMap or Secret named one of `names` (or named
 * through a variable), and any kustomization with a generator. Where the files cannot tell, yes.
 */
export function objectNamed(names: Iterable<string>): ScanQuestion {
  const named = nameLine(names);
  return {
    test: (text) => /^\s*kind\s*:\s*["']?(?:ConfigMap|Secret)\b/m.test(text) && named(text),
    doubt: true,
    kustomization: (k) => k.configMapGenerator !== undefined || k.secretGenerator !== undefined,
  };
}

/**
 * For a ResourceSet's dependsOn on an object a leaf tier may apply (a CRD, a ConfigMap, a Deployment): a file that
 * may hold an object named one of `names` (or named through a variable); a kustomization that renames or generates
 * objects may hold one too.
 */
export function anyObjectNamed(names: Iterable<string>): ScanQuestion {
  const named = nameLine(names);
  return {
    test: named,
    doubt: true,
    kustomization: (k) => k.namePrefix !== undefined || k.nameSuffix !== undefined || k.configMapGenerator !== undefined || k.secretGenerator !== undefined,
  };
}
