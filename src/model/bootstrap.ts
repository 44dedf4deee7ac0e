import type { Platform } from './platforms.js';
import type { Problem } from './problem.js';

/** One thing a repository installs before Flux starts: a helmfile release, a hook's kubectl apply, a manifest. */
export interface BootstrapInstall {
  /** Short name shown to people: the release name, or the applied file's name. */
  name: string;
  /** The release's namespace, when it is a helmfile release. */
  namespace: string | null;
  /** How it is installed: a helmfile release, a kubectl apply in a hook, a manifest from tiers.yaml. */
  kind: 'helmfile-release' | 'hook-apply' | 'manifest';
  /** The chart as written (null when templated or not a chart): looked up in the chart table. */
  chart: string | null;
  /** CRD groups known without the chart table: CRDs read from applied files, `kubectl wait crd/...` in hooks. */
  groups: string[];
  file: string;
  line: number | null;
}

/** A platform the repository runs on, declared in tiers.yaml or inferred, with the evidence. */
export interface PlatformUse {
  platform: Platform;
  /** `tiers.yaml`, or the file that shows it (a Talos machine config, a TalosUpgrade). */
  from: string;
}

/** What exists before the first tier: read from the repository by src/repo/bootstrap.ts, used by `check`. */
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
}

export const emptyBootstrap = (): Bootstrap => ({ installs: [], platforms: [], problems: [], tierCrds: [] });
