// Which postBuild substitution a cluster's kustomize-controller runs: strict (an undefined `${var}` fails the build)
// or not (it becomes an empty string). The StrictPostBuildSubstitutions feature gate is on by default since
// kustomize-controller v1.9.0 (Flux 2.9; its CHANGELOG and internal/features/features.go), off before, and a
// `--feature-gates` argument can turn it either way.
import { NEWEST_FLUX, showMinor, type FluxMinor } from './flux-versions.js';

/** The first Flux whose kustomize-controller substitutes strictly by default (v1.9.0). */
export const STRICT_SUBSTITUTION_SINCE: FluxMinor = { major: 2, minor: 9 };

export interface SubstitutionSemantics {
  strict: boolean;
  /** Whose semantics these are, for messages: `Flux 2.8 (clusters/dev/flux-system/gotk-components.yaml)`. */
  why: string;
}

/** When the repository does not say which Flux it installs: the newest standup knows, which is strict. */
export const ASSUMED_SUBSTITUTION: SubstitutionSemantics = {
  strict: true,
  why: `Flux ${showMinor(NEWEST_FLUX)}, assumed: the repository does not say which Flux this cluster installs`,
};
