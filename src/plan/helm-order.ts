// HelmRelease dependsOn edges the tier graph does not show: helm-controller holds a release until its dependency
// is Ready, whenever that dependency's tier happens to run. Pure; `check` reports them (rule helmrelease-order) and
// `plan -o json` lists them per Kustomization as `implicitDependsOn`.
import type { Graph } from '../graph/graph.js';
import type { ClusterModel, RenderedObject } from '../model/flux.js';
import { parseKsKey, refKey, type ObjRef } from '../model/ref.js';
import { Order } from '../graph/order.js';

export interface HiddenHelmOrder {
  /** The HelmRelease that depends on another (its tier is `tier`). */
  release: RenderedObject;
  /** The HelmRelease it depends on. */
  target: ObjRef;
  /** The Kustomization that applies `release`. */
  tier: string;
  /** The Kustomization that applies `target`: outside `tier`'s dependsOn closure. */
  targetTier: string;
  /** True when `targetTier` can only run after `tier`, and `tier` waits for `release`: neither converges. */
  deadlock: boolean;
}

const isHelmRelease = (o: RenderedObject) => o.kind === 'HelmRelease' && o.apiVersion.startsWith('helm.toolkit.fluxcd.io/');

/**
 * Every HelmRelease spec.dependsOn on a HelmRelease applied by a tier that is neither `tier` itself nor Ready or
 * applied before it (dependsOn of it and its ancestors, transitively; see Order). A dependency nothing in the
 * model applies (another source, a tier not built) says nothing.
 */
export function hiddenHelmOrders(cluster: ClusterModel, graph: Graph, order: Order = new Order(graph)): HiddenHelmOrder[] {
  const releases = cluster.objects.filter(isHelmRelease);
  const byKey = new Map<string, RenderedObject[]>();
  for (const r of releases) byKey.set(refKey(r), [...(byKey.get(refKey(r)) ?? []), r]);
  const out: HiddenHelmOrder[] = [];
  for (const hr of releases) {
    const tier = hr.owner;
    if (tier === null || !graph.nodes.has(tier)) continue;
    const deps = ((hr.raw as { spec?: { dependsOn?: unknown } }).spec?.dependsOn ?? []) as { name?: unknown; namespace?: unknown }[];
    for (const d of Array.isArray(deps) ? deps : []) {
      if (typeof d?.name !== 'string') continue;
      const target: ObjRef = { kind: 'HelmRelease', namespace: typeof d.namespace === 'string' ? d.namespace : hr.namespace, name: d.name };
      const owners = (byKey.get(refKey(target)) ?? []).map((t) => t.owner);
      if (owners.length === 0) continue;
      if (owners.some((u) => u === null || u === tier || order.ready(tier).has(u) || order.applied(tier).has(u))) continue;
      const targetTier = owners.find((o): o is string => o !== null)!;
      const node = graph.nodes.get(tier);
      const waits = (node?.wait ?? false) || (node?.healthChecks ?? 0) > 0;
      out.push({ release: hr, target, tier, targetTier, deadlock: order.blockedBy(targetTier, tier) && waits });
    }
  }
  return out;
}

/** One entry of a Kustomization's `implicitDependsOn` in `plan -o json`. */
export interface ImplicitDependsOn {
  namespace: string;
  name: string;
  /** The HelmRelease edge that makes the order: `from` depends on `to` (both `HelmRelease/namespace/name`). */
  via: { from: string; to: string };
}

/** `implicitDependsOn` by Kustomization key: the tiers each must follow for its HelmReleases' dependsOn, sorted. */
export function implicitDependsOn(cluster: ClusterModel, graph: Graph): Map<string, ImplicitDependsOn[]> {
  const out = new Map<string, ImplicitDependsOn[]>();
  const seen = new Set<string>();
  for (const e of hiddenHelmOrders(cluster, graph)) {
    const from = refKey({ kind: 'HelmRelease', namespace: e.release.namespace, name: e.release.name });
    const to = refKey(e.target);
    const id = `${e.tier}\u0000${e.targetTier}\u0000${from}\u0000${to}`;
    if (seen.has(id)) continue;
    seen.add(id);
    const { namespace, name } = parseKsKey(e.targetTier);
    out.set(e.tier, [...(out.get(e.tier) ?? []), { namespace, name, via: { from, to } }]);
  }
  const key = (d: ImplicitDependsOn) => `${d.namespace}/${d.name}\u0000${d.via.from}\u0000${d.via.to}`;
  for (const list of out.values()) list.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  return out;
}
