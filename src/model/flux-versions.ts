// Which Flux a repository installs, and what follows from its version. Flux 2's controllers move in step with the
// distribution: Flux v2.N ships kustomize-controller v1.N and helm-controller v1.N (v2.3.0 with kustomize-controller
// v1.3.0, v2.8 with v1.8.5, v2.9.4 with v1.9.x), so a distribution's minor names its controllers' behaviour.

/** The newest Flux minor standup's knowledge covers (its rules about removed APIs and defaults go this far). */
export const NEWEST_FLUX: FluxMinor = { major: 2, minor: 9 };

export interface FluxMinor {
  major: number;
  minor: number;
}

/**
 * Where a repository says which Flux a cluster runs: the install manifests (`gotk-components.yaml`: its CRDs'
 * `app.kubernetes.io/version` label, its controllers' image tags), a FluxInstance's `spec.distribution.version`, the
 * flux-instance chart's `instance.distribution.version` (the chart's default is `2.x`), or tiers.yaml's
 * bootstrap.install manifests.
 */
export interface InstalledFlux {
  /** The cluster it applies to; null when the repository installs it the same way for every cluster. */
  cluster: string | null;
  /** As written: `v2.7.3`, `2.7.x`, `2.x`, `>=2.8.0`; null when the source names only controller versions. */
  version: string | null;
  /** kustomize-controller's version when an image tag names it (`v1.8.5`). */
  kustomizeController: string | null;
  how: 'install-manifests' | 'flux-source' | 'flux-instance' | 'flux-instance-chart' | 'tiers.yaml';
  /** The controllers a FluxInstance (or the flux-instance chart's values) lists in components, when it lists them. */
  components?: string[];
  file: string;
  line: number | null;
}

/**
 * The Flux minor a version or constraint selects, as flux-operator resolves a FluxInstance's constraint (the newest
 * matching minor it knows): `v2.7.3` and `2.7.x` -> 2.7; `2.x`, `*`, `>=2.8.0` -> the newest minor standup knows
 * (the operator picks the newest it embeds); null when it cannot be read.
 */
export function fluxMinorOf(version: string): FluxMinor | null {
  const v = version.trim().replace(/^v/, '');
  if (v === '*' || v === 'x' || v === 'latest') return NEWEST_FLUX;
  const exact = /^(\d+)\.(\d+)(?:\.(?:\d+|x|\*)(?:[-+].*)?)?$/.exec(v);
  if (exact) return { major: Number(exact[1]), minor: Number(exact[2]) };
  const major = /^(\d+)(?:\.(?:x|\*))?$/.exec(v);
  if (major) return Number(major[1]) === NEWEST_FLUX.major ? NEWEST_FLUX : { major: Number(major[1]), minor: 0 };
  const lower = /^>=?\s*v?(\d+)\.(\d+)/.exec(v);
  if (lower) return Number(lower[1]) === NEWEST_FLUX.major ? NEWEST_FLUX : { major: Number(lower[1]), minor: Number(lower[2]) };
  const tilde = /^[~^]\s*v?(\d+)\.(\d+)/.exec(v);
  if (tilde) return v.startsWith('^') && Number(tilde[1]) === NEWEST_FLUX.major ? NEWEST_FLUX : { major: Number(tilde[1]), minor: Number(tilde[2]) };
  return null;
}

/** The Flux minor an install names: its distribution version, else its kustomize-controller's (v1.N -> Flux 2.N). */
export function installedMinor(f: Pick<InstalledFlux, 'version' | 'kustomizeController'>): FluxMinor | null {
  if (f.version) {
    const m = fluxMinorOf(f.version);
    if (m) return m;
  }
  const kc = f.kustomizeController ? /^v?1\.(\d+)/.exec(f.kustomizeController) : null;
  return kc ? { major: 2, minor: Number(kc[1]) } : null;
}

export const compareMinor = (a: FluxMinor, b: FluxMinor): number => a.major - b.major || a.minor - b.minor;

export const showMinor = (m: FluxMinor): string => `${m.major}.${m.minor}`;

/**
 * Which statement wins when a cluster has several: what tiers.yaml says up installs, then the operator's, then a Flux
 * source at a tag (what the cluster runs once it has synced: it replaces the manifests first installed), then manifests.
 */
const PRECEDENCE: readonly InstalledFlux['how'][] = ['tiers.yaml', 'flux-instance', 'flux-instance-chart', 'flux-source', 'install-manifests'];

/**
 * The Flux a cluster runs, from what the repository says: the cluster's own install first, then one made for every
 * cluster; among several, the strongest statement (PRECEDENCE), and of equals the oldest, whose limits bite first.
 * Null when the repository does not say.
 */
export function fluxFor(installs: readonly InstalledFlux[], cluster: string): { minor: FluxMinor; from: InstalledFlux } | null {
  const mine = installs.filter((f) => f.cluster === cluster);
  const pool = mine.length > 0 ? mine : installs.filter((f) => f.cluster === null);
  let best: { minor: FluxMinor; from: InstalledFlux; rank: number } | null = null;
  for (const from of pool) {
    const minor = installedMinor(from);
    if (!minor) continue;
    const rank = PRECEDENCE.indexOf(from.how);
    if (!best || rank < best.rank || (rank === best.rank && compareMinor(minor, best.minor) < 0)) best = { minor, from, rank };
  }
  return best && { minor: best.minor, from: best.from };
}
