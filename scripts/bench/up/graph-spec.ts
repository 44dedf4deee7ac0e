// The shape the up benchmark runs: a Kustomization graph (names, namespaces, dependsOn, nesting, wait, healthChecks,
// timeouts) and, per Kustomization, what it applies. Read from a corpus cluster entry (corpus-graph.ts) or made up
// (synthetic.ts); written out as an inert, runnable repository by generate.ts.

/** An object a healthChecks entry names (Flux's NamespacedObjectKindReference). */
export interface HealthRef {
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string;
}

export interface ReleaseSpec {
  namespace: string;
  name: string;
  /** Keys (`namespace/name`) of the HelmReleases it dependsOn, as in the real release. */
  dependsOn: string[];
}

export interface TierSpec {
  namespace: string;
  name: string;
  /**
   * Key of the Kustomization whose build applies this one, as `standup plan` reports it: the root sync's key for what
   * the entry applies when the root sync is in the entry, null when it is not.
   */
  parent: string | null;
  /** Keys, every one a Kustomization of the graph. */
  dependsOn: string[];
  wait: boolean;
  timeout?: string;
  interval?: string;
  retryInterval?: string;
  prune: boolean;
  healthChecks: HealthRef[];
  /** HelmReleases of the loopback chart, one per HelmRelease the real tier applies. */
  helmReleases: ReleaseSpec[];
  /** Namespace objects the tier applies (as the real one does). */
  namespaces: string[];
  /** ConfigMaps the tier applies: one for a tier of plain config, stand-ins for health-checked objects. */
  configMaps: { namespace: string; name: string }[];
  /** A source the tier applies (a GitRepository another tier reads from a repository of its own). */
  sources: { namespace: string; name: string; repo: string }[];
  /** Set when the tier reads another repository than the root sync's: served as its own git repository. */
  external?: { namespace: string; name: string; repo: string; path: string };
}

export interface GraphSpec {
  /** Short name, used for repository names and reports: `sulibot`, `chain-8`. */
  name: string;
  /** Where the graph comes from, for reports. */
  origin: string;
  /** The entry path in the generated repository (the corpus entry's own, so paths in reports read the same). */
  entry: string;
  /**
   * The root sync (GitRepository + Kustomization reconciling the entry). `inEntry`: the entry applies it itself, as
   * `flux bootstrap` lays it out, so it is a node of the graph; otherwise it is applied from outside (a FluxInstance
   * creates it in the real cluster) and is not part of the plan.
   */
  root: { namespace: string; name: string; inEntry: boolean; interval?: string; timeout?: string; wait?: boolean };
  /** Everything except the root sync. */
  tiers: TierSpec[];
  /** What the entry itself applies besides its Kustomizations (the root sync's own objects). */
  entryContent: Pick<TierSpec, 'helmReleases' | 'namespaces' | 'configMaps' | 'sources'>;
  /** What was left out or rewritten to make the repository inert and runnable, and why: printed with the results. */
  notes: string[];
}

export const keyOf = (o: { namespace: string; name: string }): string => `${o.namespace}/${o.name}`;
export const rootKey = (g: GraphSpec): string => keyOf(g.root);

/** Every Kustomization key of the graph, the root sync first when it is a node of the plan. */
export function graphKeys(g: GraphSpec): string[] {
  return [...(g.root.inEntry ? [rootKey(g)] : []), ...g.tiers.map(keyOf)];
}

export const releaseCount = (g: GraphSpec): number => g.entryContent.helmReleases.length + g.tiers.reduce((n, t) => n + t.helmReleases.length, 0);

/**
 * Problems that would make the generated repository not converge or not match the graph: duplicate keys, a
 * dependsOn or parent that is not a Kustomization of the graph, a nesting loop. All of them, not the first.
 */
export function specProblems(g: GraphSpec): string[] {
  const out: string[] = [];
  const keys = new Set<string>();
  for (const k of graphKeys(g)) {
    if (keys.has(k)) out.push(`Kustomization ${k} is defined twice`);
    keys.add(k);
  }
  const byKey = new Map(g.tiers.map((t) => [keyOf(t), t]));
  for (const t of g.tiers) {
    for (const d of t.dependsOn) if (!keys.has(d)) out.push(`Kustomization ${keyOf(t)} dependsOn ${d}, which is not in the graph`);
    if (t.parent !== null && !keys.has(t.parent)) out.push(`Kustomization ${keyOf(t)} is applied by ${t.parent}, which is not in the graph`);
    const seen = new Set<string>([keyOf(t)]);
    for (let p = t.parent; p !== null && p !== rootKey(g); p = byKey.get(p)?.parent ?? null) {
      if (seen.has(p)) {
        out.push(`Kustomization ${keyOf(t)} sits in a nesting loop (${[...seen].join(' -> ')} -> ${p})`);
        break;
      }
      seen.add(p);
    }
  }
  return out;
}

/** dependsOn levels of the graph (Kahn), as `standup plan` counts them: the root sync shares level 0. */
export function levelCount(g: GraphSpec): number {
  const deps = new Map(g.tiers.map((t) => [keyOf(t), t.dependsOn] as const));
  const depth = new Map<string, number>();
  const at = (k: string, seen = new Set<string>()): number => {
    const hit = depth.get(k);
    if (hit !== undefined) return hit;
    if (seen.has(k)) return 0;
    seen.add(k);
    const d = Math.max(-1, ...(deps.get(k) ?? []).map((x) => at(x, seen))) + 1;
    depth.set(k, d);
    return d;
  };
  return g.tiers.length ? Math.max(...g.tiers.map((t) => at(keyOf(t)))) + 1 : 1;
}
