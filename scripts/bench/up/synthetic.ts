// Made-up graphs: the 8-tier chain of the first benchmark, and the scale runs' deep chains and shallow fans of N
// tiers of plain config (no pods: a single node cannot run a thousand of them, and the question there is standup's
// own memory and API traffic, not the workloads').
import type { GraphSpec, TierSpec } from './graph-spec.js';

const tier = (name: string, dependsOn: string[]): TierSpec => ({
  namespace: 'flux-system',
  name,
  parent: 'flux-system/flux-system',
  dependsOn,
  wait: true,
  timeout: '2m',
  interval: '10m',
  retryInterval: '30s',
  prune: true,
  healthChecks: [],
  helmReleases: [],
  namespaces: [],
  configMaps: [{ namespace: 'flux-system', name: `bench-${name}` }],
  sources: [],
});

function graph(name: string, origin: string, tiers: TierSpec[]): GraphSpec {
  return {
    name,
    origin,
    entry: 'clusters/bench',
    root: { namespace: 'flux-system', name: 'flux-system', inEntry: true, interval: '10m' },
    tiers,
    entryContent: { helmReleases: [], namespaces: [], configMaps: [], sources: [] },
    notes: [],
  };
}

const names = (n: number) => Array.from({ length: n }, (_, i) => `tier-${i + 1}`);

/** `deep-N`: tier-1 <- tier-2 <- ... <- tier-N, each dependsOn the one before (N levels). */
export function deepChain(n: number): GraphSpec {
  const ns = names(n);
  return graph(`deep-${n}`, `a chain of ${n} tiers, each dependsOn the previous, wait: true, one ConfigMap each`, ns.map((t, i) => tier(t, i ? [`flux-system/${ns[i - 1]}`] : [])));
}

/** `wide-N`: tier-1, and tier-2 ... tier-N each dependsOn tier-1 (2 levels). */
export function wideFan(n: number): GraphSpec {
  const ns = names(n);
  return graph(`wide-${n}`, `${n} tiers: tier-1, and ${n - 1} that each dependsOn it, wait: true, one ConfigMap each`, ns.map((t, i) => tier(t, i ? ['flux-system/tier-1'] : [])));
}

/** Parses `chain-8`, `deep-300`, `wide-1000`; null for any other name. */
export function syntheticGraph(name: string): GraphSpec | null {
  const m = /^(chain|deep|wide)-([1-9]\d{0,4})$/.exec(name);
  if (!m) return null;
  const n = Number(m[2]);
  return m[1] === 'wide' ? wideFan(n) : { ...deepChain(n), name };
}
