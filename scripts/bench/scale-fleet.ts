// Synthetic fleets for `npm run bench:scale`: N Kustomizations of plain config (one ConfigMap each), about three
// dependsOn each on earlier ones, laid out flat (the entry applies all N) or grouped (the entry applies one group
// Kustomization per GROUP_SIZE, each group applies its share), so both one large build and many small ones are timed.
import type { GraphSpec, TierSpec } from './up/graph-spec.js';

export type Layout = 'flat' | 'grouped';
export const LAYOUTS: Layout[] = ['flat', 'grouped'];
/** Kustomizations per group in the grouped layout (the issue's fleet: 5,000 in 50 groups). */
export const GROUP_SIZE = 100;

const tier = (name: string, parent: string, dependsOn: string[], configMap: boolean): TierSpec => ({
  namespace: 'flux-system',
  name,
  parent,
  dependsOn,
  wait: false,
  prune: true,
  healthChecks: [],
  helmReleases: [],
  namespaces: [],
  configMaps: configMap ? [{ namespace: 'flux-system', name: `cm-${name}` }] : [],
  sources: [],
});

/**
 * dependsOn of app i (1-based): up to three apps of the layer before its own, where layer L holds apps 2^L .. 2^(L+1)-1,
 * picked by a multiplicative hash so they spread across groups. Deterministic and acyclic, and the graph has
 * log2(N)+1 levels, as a fleet of platform, shared services and apps has a handful (a 5,000-level chain would time
 * the level loop, not the fleet).
 */
export function fleetDeps(i: number): number[] {
  if (i <= 1) return [];
  const layer = Math.floor(Math.log2(i));
  const lo = 2 ** (layer - 1);
  const size = 2 ** (layer - 1);
  const picks = [0, 1, 2].map((k) => lo + (Math.imul(i * 3 + k, 2654435761) >>> 0) % size);
  return [...new Set(picks)].sort((a, b) => a - b);
}

export function scaleFleet(n: number, layout: Layout): GraphSpec {
  const root = 'flux-system/flux-system';
  const tiers: TierSpec[] = [];
  const groups = layout === 'grouped' ? Math.ceil(n / GROUP_SIZE) : 0;
  for (let g = 1; g <= groups; g++) tiers.push(tier(`group-${g}`, root, [], false));
  for (let i = 1; i <= n; i++) {
    const parent = layout === 'grouped' ? `flux-system/group-${Math.ceil(i / GROUP_SIZE)}` : root;
    tiers.push(tier(`app-${i}`, parent, fleetDeps(i).map((j) => `flux-system/app-${j}`), true));
  }
  return {
    name: `${layout}-${n}`,
    origin: `a synthetic fleet of ${n} Kustomizations (${layout === 'grouped' ? `${groups} groups of up to ${GROUP_SIZE}` : 'all applied by the entry'}), ~3 dependsOn each, one ConfigMap each`,
    entry: 'clusters/bench',
    root: { namespace: 'flux-system', name: 'flux-system', inEntry: true, interval: '10m' },
    tiers,
    entryContent: { helmReleases: [], namespaces: [], configMaps: [], sources: [] },
    notes: [],
  };
}
