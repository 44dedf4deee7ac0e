// The physical limit of a cold start: how soon everything could be Ready if every Kustomization and HelmRelease
// started the instant what it needs was done, each taking exactly as long as its controller took for it in the run
// (from kustomize-controller's, helm-controller's and source-controller's logs). No requeue waits, no worker limit,
// no driver. It is the longest path through this graph of events (times in ms from the moment the root source can
// be fetched):
//
//   Kustomization K   start(K)   = max(applied(applier of K), ready(each dependsOn), fetched(K's own source))
//                     applied(K) = start(K) + apply(K)              apply: reconcile start -> "server-side apply completed"
//                     ready(K)   = max(applied(K), ready(each object K waits on)) + tail(K)
//                                  waits on: with wait: true its child Kustomizations and HelmReleases; with
//                                  healthChecks, the Kustomizations and HelmReleases they name
//                                  tail: after the last of those was ready until "Reconciliation finished" (the
//                                  status update, and kustomize-controller's own 5 s health-check polling)
//   HelmRelease H     ready(H)   = max(applied(its tier), ready(each dependsOn)) + own(H)
//                                  own: helm-controller's attempt that installed it, "all dependencies are ready"
//                                  (or its first line) -> "release in-sync with desired state"
//   source S          fetched(S) = applied(the tier applying it, 0 for the root's) + source-controller's fetch time

export interface LimitKustomization {
  key: string;
  /** The Kustomization that applies it; null for the root sync. */
  applier: string | null;
  dependsOn: string[];
  /** Keys (Kustomizations or `HelmRelease/<ns>/<name>`) it waits on before it is Ready. */
  waitsOn: string[];
  /** A source other than the root's, by key (`GitRepository/<ns>/<name>`). */
  source?: string;
  applyMs: number;
  tailMs: number;
}

export interface LimitRelease {
  /** `HelmRelease/<ns>/<name>`. */
  key: string;
  /** The Kustomization that applies it. */
  owner: string;
  dependsOn: string[];
  ownMs: number;
}

export interface LimitSource {
  key: string;
  /** The Kustomization that applies it; null for the root sync's source (applied by the bootstrap). */
  owner: string | null;
  fetchMs: number;
}

export interface LimitInput {
  kustomizations: LimitKustomization[];
  releases: LimitRelease[];
  sources: LimitSource[];
  /** Key of the root sync's source (fetched first). */
  rootSource: string;
}

export interface Limit {
  /** When the last Kustomization or HelmRelease would be Ready. */
  ms: number;
  /** When the last Kustomization would be Ready. */
  kustomizationsMs: number;
  /** The longest path, first to last: `key (what, ms)`. */
  path: string[];
  ready: Map<string, number>;
}

/**
 * The longest path (see above). Throws, naming them, when a key is referenced that has no measurement, or when the
 * graph has a cycle: a limit computed from a partial graph would be no limit at all.
 */
export function physicalLimit(input: LimitInput): Limit {
  const ks = new Map(input.kustomizations.map((k) => [k.key, k]));
  const hr = new Map(input.releases.map((r) => [r.key, r]));
  const src = new Map(input.sources.map((s) => [s.key, s]));
  const missing = new Set<string>();
  for (const k of input.kustomizations) {
    for (const d of [...k.dependsOn, ...(k.applier ? [k.applier] : [])]) if (!ks.has(d)) missing.add(d);
    for (const w of k.waitsOn) if (!ks.has(w) && !hr.has(w)) missing.add(w);
    if (k.source && !src.has(k.source)) missing.add(k.source);
  }
  for (const r of input.releases) for (const d of [r.owner, ...r.dependsOn]) if (!ks.has(d) && !hr.has(d)) missing.add(d);
  if (!src.has(input.rootSource)) missing.add(input.rootSource);
  if (missing.size) throw new Error(`no measurement for ${[...missing].sort().join(', ')}`);

  // Memoised recursion over events; `via` keeps the predecessor that set each time, for the path.
  const memo = new Map<string, number>();
  const via = new Map<string, { from: string | null; label: string; add: number }>();
  const visiting = new Set<string>();
  const at = (event: string): number => {
    const hit = memo.get(event);
    if (hit !== undefined) return hit;
    if (visiting.has(event)) throw new Error(`cycle through ${event}`);
    visiting.add(event);
    const [kind, key] = [event.slice(0, event.indexOf(':')), event.slice(event.indexOf(':') + 1)];
    let best = 0;
    let from: string | null = null;
    const take = (e: string) => {
      const t = at(e);
      if (t > best || from === null) [best, from] = [t, e];
    };
    let add = 0;
    let label = '';
    if (kind === 'fetched') {
      const s = src.get(key)!;
      if (s.owner) take(`applied:${s.owner}`);
      add = s.fetchMs;
      label = `${key} fetched`;
    } else if (kind === 'start') {
      const k = ks.get(key)!;
      if (k.applier) take(`applied:${k.applier}`);
      else take(`fetched:${input.rootSource}`);
      for (const d of k.dependsOn) take(`ready:${d}`);
      if (k.source) take(`fetched:${k.source}`);
      label = `${key} starts`;
    } else if (kind === 'applied') {
      take(`start:${key}`);
      add = ks.get(key)!.applyMs;
      label = `${key} applied`;
    } else if (kind === 'ready' && ks.has(key)) {
      const k = ks.get(key)!;
      take(`applied:${key}`);
      for (const w of k.waitsOn) take(`ready:${w}`);
      add = k.tailMs;
      label = `${key} Ready`;
    } else if (kind === 'ready') {
      const r = hr.get(key)!;
      take(`applied:${r.owner}`);
      for (const d of r.dependsOn) take(`ready:${d}`);
      add = r.ownMs;
      label = `${key} Ready`;
    }
    const t = (from === null ? 0 : best) + add;
    visiting.delete(event);
    memo.set(event, t);
    via.set(event, { from, label: `${label} (+${Math.round(add)} ms)`, add });
    return t;
  };

  const ready = new Map<string, number>();
  let last = '';
  let lastKs = 0;
  for (const key of [...ks.keys(), ...hr.keys()]) {
    const t = at(`ready:${key}`);
    ready.set(key, t);
    if (ks.has(key)) lastKs = Math.max(lastKs, t);
    if (!last || t > ready.get(last)!) last = key;
  }
  const path: string[] = [];
  for (let e: string | null = last ? `ready:${last}` : null; e; e = via.get(e)?.from ?? null) {
    const v = via.get(e)!;
    if (v.add > 0) path.unshift(v.label);
  }
  return { ms: last ? ready.get(last)! : 0, kustomizationsMs: lastKs, path, ready };
}
