import type { InstalledFlux } from './flux-versions.js';
import type { Platform } from './platforms.js';
import type { Problem } from './problem.js';

/** One thing a repository installs before Flux starts: a helmfile release, a hook's kubectl apply, a manifest. */
export interface BootstrapInstall {
  /** Short name shown to people: the release name, or the applied file's name. */
  name: string;
  /** The release's namespace, when it is a helmfile release. */
  namespace: string | null;
  /**
   * How it is installed: a helmfile release, a kubectl apply in a hook or a bootstrap command, a manifest from
   * tiers.yaml, a chart a bootstrap command (helm install) or a k3s HelmChart manifest installs.
   */
  kind: 'helmfile-release' | 'hook-apply' | 'manifest' | 'chart-install';
  /** The chart as written (null when templated or not a chart): looked up in the chart table. */
  chart: string | null;
  /** CRD groups known without the chart table: CRDs read from applied files, `kubectl wait crd/...` in hooks. */
  groups: string[];
  file: string;
  line: number | null;
  /** A helmfile release rendered only for its CRDs (`helm template --include-crds`): the chart itself is not installed. */
  crdsOnly?: boolean;
}

/** A platform the repository runs on, declared in tiers.yaml or inferred, with the evidence. */
export interface PlatformUse {
  platform: Platform;
  /** `tiers.yaml`, or the file that shows it (a Talos machine config, a TalosUpgrade). */
  from: string;
}

/** What exists before the first tier: read from the repository by src/bootstrap/pre-flux-installs.ts, used by `check`. */
export interface Bootstrap {
  installs: BootstrapInstall[];
  platforms: PlatformUse[];
  /** Files that look like bootstrap steps and could not be read (`bootstrap-unreadable`). */
  problems: Problem[];
  /**
   * Tiers that were not built (their build failed), read statically instead: the CRD groups their kustomization
   * lists (files, URLs) and the charts of the HelmReleases and OCIRepositories in their folder.
   */
  tierCrds: { cluster: string; tier: string; groups: string[]; charts: string[] }[];
  /** Which Flux each cluster installs, where the repository says (model/flux-versions.ts's fluxFor picks one). */
  flux: InstalledFlux[];
}

export const emptyBootstrap = (): Bootstrap => ({ installs: [], platforms: [], problems: [], tierCrds: [], flux: [] });
