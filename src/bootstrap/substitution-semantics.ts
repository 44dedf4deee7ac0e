// Which postBuild substitution a cluster's kustomize-controller runs, from the Flux the repository installs for it
// (installed-flux.ts, model/flux-versions.ts) and any `--feature-gates=StrictPostBuildSubstitutions=...` it sets: in
// the controller's Deployment (Flux's install manifests with their patches) or in a FluxInstance's (or flux-instance
// chart's) kustomize patches.
import type { StandupConfig } from '../model/config.js';
import type { ClusterModel } from '../model/flux.js';
import { compareMinor, fluxFor, showMinor } from '../model/flux-versions.js';
import { ASSUMED_SUBSTITUTION, STRICT_SUBSTITUTION_SINCE, type SubstitutionSemantics } from '../model/substitution.js';
import type { TextMemo } from '../repo/lazy-yaml.js';
import { repoFeatureGate } from './feature-gates.js';
import { readInstalledFlux } from './installed-flux.js';

export function substitutionSemantics(root: string, config: StandupConfig, cluster: ClusterModel, memo?: TextMemo): SubstitutionSemantics {
  const installed = fluxFor(readInstalledFlux(root, config, [cluster], memo), cluster.name);
  const gate = repoFeatureGate(cluster.objects, 'StrictPostBuildSubstitutions', 'kustomize-controller');
  let s: SubstitutionSemantics = ASSUMED_SUBSTITUTION;
  if (installed) {
    const at = `${installed.from.file}${installed.from.line ? `:${installed.from.line}` : ''}`;
    const strict = compareMinor(installed.minor, STRICT_SUBSTITUTION_SINCE) >= 0;
    s = { strict, why: `Flux ${showMinor(installed.minor)} (${at})${strict ? '' : `, whose kustomize-controller is older than v1.${STRICT_SUBSTITUTION_SINCE.minor}.0,`}` };
  }
  if (gate) s = { strict: gate.on, why: `${s.why.replace(/,$/, '')} with --feature-gates=StrictPostBuildSubstitutions=${gate.on} (${gate.from})` };
  return s;
}
